#include "probe/host_topology.h"

#include <fmt/format.h>
#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "hw/hwloc_import.h"
#include "probe/affinity.h"

namespace ipisim::probe {

namespace {

struct TopologyDeleter {
    void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using HwlocTopology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

int ancestor_index(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_obj_t pu) {
    hwloc_obj_t o = hwloc_get_ancestor_obj_by_type(t, type, pu);
    return o != nullptr ? static_cast<int>(o->logical_index) : -1;
}

std::string info_of(hwloc_topology_t t, hwloc_obj_type_t type, const char* name) {
    hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);
    if (o == nullptr) return "";
    const char* v = hwloc_obj_get_info_by_name(o, name);
    return v != nullptr ? v : "";
}

// The importer's text for this topology, through an XML file (the importer reads files).
void import_skeleton(hwloc_topology_t t, HostTopology& out) {
    const std::filesystem::path xml =
        std::filesystem::temp_directory_path() / fmt::format("ipisim-probe-{}.xml", static_cast<long>(getpid()));
    if (hwloc_topology_export_xml(t, xml.c_str(), 0) != 0) {
        out.skeleton_error = "hwloc could not export the topology as XML";
    } else {
        try {
            out.skeleton = hw::import_hwloc_xml(xml.string());
        } catch (const std::exception& e) {
            out.skeleton_error = e.what();
        }
    }
    std::error_code ec;
    std::filesystem::remove(xml, ec);  // also a partial file of a failed export
}

HostTopology from_hwloc(hwloc_topology_t t) {
    HostTopology out;
    const int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    for (int i = 0; i < pus; ++i) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, static_cast<unsigned>(i));
        HostCpu c;
        c.os_index = static_cast<int>(pu->os_index);
        c.package = std::max(ancestor_index(t, HWLOC_OBJ_PACKAGE, pu), 0);
        const int die = ancestor_index(t, HWLOC_OBJ_DIE, pu);
        // Die and L3 indices are made unique across the levels above by offsetting.
        c.die = die >= 0 ? die : 100000 + c.package;
        const int l3 = ancestor_index(t, HWLOC_OBJ_L3CACHE, pu);
        c.l3 = l3 >= 0 ? l3 : 100000 + c.die;
        const int core = ancestor_index(t, HWLOC_OBJ_CORE, pu);
        c.core = core >= 0 ? core : 100000 + c.os_index;
        out.cpus.push_back(c);
    }
    std::sort(out.cpus.begin(), out.cpus.end(),
              [](const HostCpu& a, const HostCpu& b) { return a.os_index < b.os_index; });
    // One task per core first: the k-th PU of each core in core order, for k = 0, 1, ...
    const int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    if (cores > 0) {
        for (unsigned k = 0;; ++k) {
            bool any = false;
            for (int i = 0; i < cores; ++i) {
                hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
                hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(t, core->cpuset, HWLOC_OBJ_PU, k);
                if (pu == nullptr) continue;
                out.task_order.push_back(static_cast<int>(pu->os_index));
                any = true;
            }
            if (!any) break;
        }
    } else {
        for (const HostCpu& c : out.cpus) out.task_order.push_back(c.os_index);
    }
    out.cpu_model = info_of(t, HWLOC_OBJ_PACKAGE, "CPUModel");
    out.cpu_vendor = info_of(t, HWLOC_OBJ_PACKAGE, "CPUVendor");
    import_skeleton(t, out);
    return out;
}

HwlocTopology init_or_throw() {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) throw std::runtime_error("hwloc_topology_init failed");
    return HwlocTopology(raw);
}

}  // namespace

hw::DistanceClass HostTopology::distance(int a, int b) const {
    if (a == b) return hw::DistanceClass::self;
    const HostCpu& x = cpu(a);
    const HostCpu& y = cpu(b);
    if (x.core == y.core) return hw::DistanceClass::smt;
    if (x.l3 == y.l3) return hw::DistanceClass::same_l3;
    if (x.die == y.die) return hw::DistanceClass::same_die;
    if (x.package == y.package) return hw::DistanceClass::same_package;
    return hw::DistanceClass::cross_package;
}

const HostCpu& HostTopology::cpu(int os_index) const {
    for (const HostCpu& c : cpus) {
        if (c.os_index == os_index) return c;
    }
    throw std::out_of_range(fmt::format("CPU {} is not in the probed topology", os_index));
}

// Keeps only the CPUs this process may run on (taskset, sched_setaffinity): the probe measures
// those; the skeleton still describes the whole machine.
void restrict_to(HostTopology& t, const std::vector<int>& allowed) {
    const auto ok = [&](int c) { return std::find(allowed.begin(), allowed.end(), c) != allowed.end(); };
    std::erase_if(t.cpus, [&](const HostCpu& c) { return !ok(c.os_index); });
    std::erase_if(t.task_order, [&](int c) { return !ok(c); });
}

HostTopology load_host_topology() {
    try {
        HwlocTopology t = init_or_throw();
        if (hwloc_topology_load(t.get()) != 0) throw std::runtime_error("hwloc_topology_load failed");
        HostTopology out = from_hwloc(t.get());
        restrict_to(out, allowed_cpus());
        return out;
    } catch (const std::exception& e) {
        HostTopology out;
        for (int c : allowed_cpus()) {
            out.cpus.push_back(HostCpu{c, c, 0, 0, 0});
            out.task_order.push_back(c);
        }
        out.skeleton_error = e.what();
        return out;
    }
}

HostTopology load_topology_xml(const std::string& path) {
    HwlocTopology t = init_or_throw();
    if (hwloc_topology_set_xml(t.get(), path.c_str()) != 0 || hwloc_topology_load(t.get()) != 0) {
        throw std::runtime_error("hwloc cannot read " + path);
    }
    return from_hwloc(t.get());
}

}  // namespace ipisim::probe
