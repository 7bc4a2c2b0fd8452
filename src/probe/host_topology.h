// The topology of the machine the probe runs on, from hwloc (the live system, or an XML file
// for tests): which CPUs exist, how far apart every pair is (the distance classes of
// hw::Topology::distance: smt, same_l3, same_die, same_package, cross_package), the order
// will-it-scale binds tasks in (one per core first), and the machine-file [topology] the
// project's importer (`ipisim machine import`) derives from the same hwloc data.
#pragma once

#include <string>
#include <vector>

#include "hw/topology.h"

namespace ipisim::probe {

// Where one CPU sits; indices are hwloc logical indices, -1 never (missing levels fold into
// the next level up, as the importer folds them: no L3 -> one per die, no die -> the package).
struct HostCpu {
    int os_index = 0;  // the Linux CPU number
    int core = 0;
    int l3 = 0;
    int die = 0;
    int package = 0;
};

struct HostTopology {
    std::vector<HostCpu> cpus;  // ascending os_index (the CPUs the probe may use)
    // Linux CPU numbers in the order tasks are bound: the first PU of every core (in core
    // order), then the second PU of every core, ... (will-it-scale's default `i mod ncores`
    // over hwloc CORE objects).
    std::vector<int> task_order;
    // The machine-file text `ipisim machine import` makes from this topology (its [topology],
    // arch and vendor are used; its placeholder costs are not). Empty if the importer refused
    // the layout: then `skeleton_error` says why.
    std::string skeleton;
    std::string skeleton_error;
    std::string cpu_model;   // hwloc's CPUModel info, "" if absent
    std::string cpu_vendor;  // hwloc's CPUVendor info ("AuthenticAMD"), "" if absent

    // The distance class of two CPUs (by Linux CPU number), like hw::Topology::distance.
    [[nodiscard]] hw::DistanceClass distance(int a, int b) const;
    [[nodiscard]] const HostCpu& cpu(int os_index) const;
};

// The live system; `cpus` and `task_order` hold only the CPUs this process may run on (its
// affinity mask), the skeleton the whole machine. Failures (hwloc cannot load) return
// a topology with `skeleton_error` set and every allowed CPU as its own core in one L3.
HostTopology load_host_topology();
// An hwloc XML file (tests). std::runtime_error if hwloc cannot read it.
HostTopology load_topology_xml(const std::string& path);

}  // namespace ipisim::probe
