#include "hw/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ipisim::hw {

namespace {

// Bits needed to number `count` items (CPUID 0xB shift widths): 1 -> 0, 2 -> 1, 3..4 -> 2.
uint32_t field_bits(uint32_t count) {
    uint32_t bits = 0;
    while ((1ULL << bits) < count) ++bits;
    return bits;
}

uint64_t mpidr(uint64_t aff3, uint64_t aff2, uint64_t aff1, uint64_t aff0) {
    return (aff3 << 32) | (aff2 << 16) | (aff1 << 8) | aff0;
}

uint64_t make_hw_id(const TopologySpec& s, const CpuInfo& c) {
    const uint32_t die_in_pkg = c.die % s.dies_per_package;
    const uint32_t l3_in_die = c.l3 % s.l3_per_die;
    const uint32_t core_in_l3 = c.core % s.cores_per_l3;
    switch (s.hw_id) {
        case HwIdScheme::apic: {
            uint64_t id = c.package;
            id = (id << field_bits(s.dies_per_package)) | die_in_pkg;
            id = (id << field_bits(s.l3_per_die)) | l3_in_die;
            id = (id << field_bits(s.cores_per_l3)) | core_in_l3;
            id = (id << field_bits(s.threads_per_core)) | c.smt;
            return id;
        }
        case HwIdScheme::mpidr_mt:
            return mpidr(c.die, l3_in_die, core_in_l3, c.smt);
        case HwIdScheme::mpidr_flat:
            return mpidr(c.package, die_in_pkg, l3_in_die, core_in_l3 * s.threads_per_core + c.smt);
    }
    return 0;
}

// Largest value any hw id field takes (must stay below 256 for MPIDR, APIC id width checked
// by the interrupt controller section).
uint64_t max_mpidr_field(const TopologySpec& s) {
    if (s.hw_id == HwIdScheme::mpidr_mt) {
        return std::max({uint64_t{s.packages} * s.dies_per_package, uint64_t{s.l3_per_die}, uint64_t{s.cores_per_l3},
                         uint64_t{s.threads_per_core}}) -
               1;
    }
    return std::max({uint64_t{s.packages}, uint64_t{s.dies_per_package}, uint64_t{s.l3_per_die},
                     uint64_t{s.cores_per_l3} * s.threads_per_core}) -
           1;
}

}  // namespace

std::string_view to_string(DistanceClass c) {
    switch (c) {
        case DistanceClass::self:
            return "self";
        case DistanceClass::smt:
            return "smt";
        case DistanceClass::same_l3:
            return "same_l3";
        case DistanceClass::same_die:
            return "same_die";
        case DistanceClass::same_package:
            return "same_package";
        case DistanceClass::cross_package:
            return "cross_package";
    }
    return "?";
}

Topology::Topology(const TopologySpec& spec) : spec_(spec) {
    const uint64_t cores = uint64_t{spec.packages} * spec.dies_per_package * spec.l3_per_die * spec.cores_per_l3;
    const uint64_t total = cores * spec.threads_per_core;
    if (cores == 0 || spec.threads_per_core == 0 || total > kMaxCpus) {
        throw std::invalid_argument(fmt::format("topology with {} CPUs", total));
    }
    const uint32_t l3_per_package = spec.dies_per_package * spec.l3_per_die;
    if (spec.numa_nodes == 0 || spec.numa_nodes % spec.packages != 0 ||
        l3_per_package % (spec.numa_nodes / spec.packages) != 0) {
        throw std::invalid_argument(fmt::format("{} NUMA nodes do not divide the layout", spec.numa_nodes));
    }
    nr_cores_ = static_cast<uint32_t>(cores);
    const uint32_t nodes_per_package = spec.numa_nodes / spec.packages;
    const uint32_t l3_per_node = l3_per_package / nodes_per_package;
    const uint32_t nr_l3 = spec.packages * l3_per_package;

    cpus_.resize(static_cast<size_t>(total));
    l3_cpus_.resize(nr_l3);
    node_cpus_.resize(spec.numa_nodes);
    package_cpus_.resize(spec.packages);
    core_cpus_.resize(nr_cores_);
    for (uint32_t core = 0; core < nr_cores_; ++core) {
        for (uint32_t t = 0; t < spec.threads_per_core; ++t) {
            CpuInfo c;
            c.core = core;
            c.smt = t;
            c.l3 = core / spec.cores_per_l3;
            c.die = c.l3 / spec.l3_per_die;
            c.package = c.die / spec.dies_per_package;
            c.node = c.package * nodes_per_package + (c.l3 % l3_per_package) / l3_per_node;
            c.cpu =
                spec.cpu_numbering == CpuNumbering::smt_last ? t * nr_cores_ + core : core * spec.threads_per_core + t;
            c.hw_id = make_hw_id(spec, c);
            cpus_[c.cpu] = c;
        }
    }
    for (const CpuInfo& c : cpus_) {
        l3_cpus_[c.l3].push_back(c.cpu);
        node_cpus_[c.node].push_back(c.cpu);
        package_cpus_[c.package].push_back(c.cpu);
        core_cpus_[c.core].push_back(c.cpu);
    }
}

uint32_t Topology::package_of_node(uint32_t node) const {
    return node / (spec_.numa_nodes / spec_.packages);
}

bool Topology::has_class(DistanceClass c) const {
    switch (c) {
        case DistanceClass::self:
            return true;
        case DistanceClass::smt:
            return spec_.threads_per_core > 1;
        case DistanceClass::same_l3:
            return spec_.cores_per_l3 > 1;
        case DistanceClass::same_die:
            return spec_.l3_per_die > 1;
        case DistanceClass::same_package:
            return spec_.dies_per_package > 1;
        case DistanceClass::cross_package:
            return spec_.packages > 1;
    }
    return false;
}

std::string Topology::summary() const {
    return fmt::format("{} packages x {} dies x {} L3 x {} cores x {} threads = {} CPUs, {} NUMA nodes", spec_.packages,
                       spec_.dies_per_package, spec_.l3_per_die, spec_.cores_per_l3, spec_.threads_per_core, nr_cpus(),
                       spec_.numa_nodes);
}

std::string_view to_string(CpuNumbering n) {
    for (const auto& [name, v] : kCpuNumberingNames) {
        if (v == n) return name;
    }
    return "?";
}

std::string_view to_string(HwIdScheme h) {
    for (const auto& [name, v] : kHwIdSchemeNames) {
        if (v == h) return name;
    }
    return "?";
}

const config::Schema<TopologySpec>& topology_schema() {
    static const auto s = [] {
        config::Schema<TopologySpec> t("machine.topology",
                                       "[topology]: packages -> dies -> L3 domains -> cores -> SMT threads");
        t.param("packages", &TopologySpec::packages, "sockets").at_least(1).at_most(64);
        t.param("dies_per_package", &TopologySpec::dies_per_package, "dies / CCDs / SCCLs per package")
            .at_least(1)
            .at_most(64);
        t.param("l3_per_die", &TopologySpec::l3_per_die, "L3 domains (CCX, Kunpeng cluster) per die")
            .at_least(1)
            .at_most(256);
        t.param("cores_per_l3", &TopologySpec::cores_per_l3, "cores sharing one L3").at_least(1).at_most(256);
        t.param("threads_per_core", &TopologySpec::threads_per_core, "SMT threads per core (at most 2 on x86)")
            .at_least(1)
            .at_most(8);
        t.param("numa_nodes", &TopologySpec::numa_nodes,
                "memory nodes: whole L3 domains each, spread evenly over the packages")
            .at_least(1)
            .at_most(1024);
        t.choice("cpu_numbering", &TopologySpec::cpu_numbering, named_choices(kCpuNumberingNames),
                 "Linux CPU numbering: first threads of all cores, then their siblings, or siblings adjacent");
        t.choice("hw_id", &TopologySpec::hw_id, named_choices(kHwIdSchemeNames),
                 "interrupt id layout: x86 APIC id, or arm64 MPIDR with (mt) or without (flat) the MT bit");
        return t;
    }();
    return s;
}

TopologySpec parse_topology(config::Table t, bool is_x86) {
    const TopologySpec s = topology_schema().read(t);
    if (is_x86 && s.threads_per_core > 2) {
        t.fail("threads_per_core", fmt::format("must be at most 2 on x86, got {}", s.threads_per_core));
    }
    if (is_x86 != (s.hw_id == HwIdScheme::apic)) {
        t.fail("hw_id", is_x86 ? "x86 machines use \"apic\"" : "arm64 machines use \"mpidr_mt\" or \"mpidr_flat\"");
    }

    const uint64_t cpus =
        uint64_t{s.packages} * s.dies_per_package * s.l3_per_die * s.cores_per_l3 * s.threads_per_core;
    if (cpus > kMaxCpus) t.fail("threads_per_core", fmt::format("{} CPUs exceed the limit of {}", cpus, kMaxCpus));
    if (s.numa_nodes % s.packages != 0) {
        t.fail("numa_nodes",
               fmt::format("{} nodes cannot be spread evenly over {} packages", s.numa_nodes, s.packages));
    }
    const uint32_t l3_per_package = s.dies_per_package * s.l3_per_die;
    const uint32_t nodes_per_package = s.numa_nodes / s.packages;
    if (l3_per_package % nodes_per_package != 0) {
        t.fail("numa_nodes",
               fmt::format("{} nodes per package do not divide its {} L3 domains", nodes_per_package, l3_per_package));
    }
    if (s.hw_id != HwIdScheme::apic && max_mpidr_field(s) > 255) {
        t.fail("hw_id", "an MPIDR affinity field would exceed 255 with this layout");
    }
    return s;
}

}  // namespace ipisim::hw
