// Machine topology: packages -> dies -> L3 domains (CCX / cluster) -> cores -> SMT threads, plus
// NUMA memory nodes, logical CPU numbering the way Linux enumerates, and hardware interrupt ids
// (x86 APIC id, Arm MPIDR affinity) that interrupt controllers group targets by.
//
//   [topology]
//   packages = 2
//   dies_per_package = 2        # dies / CCDs / SCCLs per socket
//   l3_per_die = 6              # L3 domains (CCX, Kunpeng cluster) per die
//   cores_per_l3 = 4
//   threads_per_core = 1
//   numa_nodes = 4              # whole L3 domains per node; a node never spans packages
//   cpu_numbering = "smt_last"  # or "smt_adjacent"
//   hw_id = "mpidr_mt"          # "apic" (x86), "mpidr_mt" or "mpidr_flat" (arm64)
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/schema.h"
#include "config/table.h"

namespace ipisim::hw {

using CpuId = uint32_t;

// How far apart two CPUs are; decides cache-line transfer and interrupt delivery cost.
enum class DistanceClass : uint8_t {
    self,
    smt,            // SMT siblings of one core
    same_l3,        // different cores sharing one L3 domain (CCX / cluster)
    same_die,       // different L3 domains of one die
    same_package,   // different dies (CCDs, SCCLs) of one socket
    cross_package,  // different sockets
};
inline constexpr size_t kDistanceClasses = 6;
inline constexpr std::array<DistanceClass, kDistanceClasses> kAllDistanceClasses = {
    DistanceClass::self,     DistanceClass::smt,          DistanceClass::same_l3,
    DistanceClass::same_die, DistanceClass::same_package, DistanceClass::cross_package};
std::string_view to_string(DistanceClass c);

// Linux logical CPU numbering.
enum class CpuNumbering : uint8_t {
    smt_last,      // CPUs 0..cores-1 are the first thread of every core, then the siblings
    smt_adjacent,  // the threads of a core are consecutive
};
inline constexpr std::array<std::pair<std::string_view, CpuNumbering>, 2> kCpuNumberingNames = {
    {{"smt_last", CpuNumbering::smt_last}, {"smt_adjacent", CpuNumbering::smt_adjacent}}};

// Hardware interrupt id layout.
enum class HwIdScheme : uint8_t {
    // x86 APIC id: bit fields package|die|l3|core|smt, each ceil(log2(count)) bits wide (the
    // CPUID leaf 0xB/0x1F shifts). x2APIC cluster = apic_id >> 4, logical bit = apic_id & 0xF.
    apic,
    // MPIDR with MT=1: Aff0 = SMT thread, Aff1 = core in L3 cluster, Aff2 = L3 cluster in die,
    // Aff3 = die (global). GICv3 groups by Aff3.Aff2.Aff1, so each group is one core.
    mpidr_mt,
    // MPIDR without MT: Aff0 = core*threads+smt in the L3 cluster, Aff1 = L3 cluster in die,
    // Aff2 = die in package, Aff3 = package. One GICv3 group is up to 16 CPUs of a cluster.
    mpidr_flat,
};
inline constexpr std::array<std::pair<std::string_view, HwIdScheme>, 3> kHwIdSchemeNames = {
    {{"apic", HwIdScheme::apic}, {"mpidr_mt", HwIdScheme::mpidr_mt}, {"mpidr_flat", HwIdScheme::mpidr_flat}}};
std::string_view to_string(CpuNumbering n);
std::string_view to_string(HwIdScheme h);

// A name table as config::Schema::choice() takes it.
template <class E, size_t N>
std::vector<std::pair<std::string, E>> named_choices(const std::array<std::pair<std::string_view, E>, N>& names) {
    std::vector<std::pair<std::string, E>> out;
    for (const auto& [n, v] : names) out.emplace_back(std::string(n), v);
    return out;
}

struct TopologySpec {
    uint32_t packages = 1;
    uint32_t dies_per_package = 1;
    uint32_t l3_per_die = 1;
    uint32_t cores_per_l3 = 1;
    uint32_t threads_per_core = 1;
    uint32_t numa_nodes = 1;
    CpuNumbering cpu_numbering = CpuNumbering::smt_last;
    HwIdScheme hw_id = HwIdScheme::apic;
};

// Everything known about one logical CPU. Indices are global (unique across the machine).
struct CpuInfo {
    CpuId cpu = 0;
    uint32_t package = 0;
    uint32_t die = 0;
    uint32_t l3 = 0;
    uint32_t core = 0;
    uint32_t smt = 0;  // thread index within its core
    uint32_t node = 0;
    uint64_t hw_id = 0;  // APIC id or MPIDR (Aff3 in bits 39:32, Aff2..Aff0 in 23:0)
};

class Topology {
public:
    Topology() : Topology(TopologySpec{}) {}
    // The spec must be valid (see parse_topology); std::invalid_argument otherwise.
    explicit Topology(const TopologySpec& spec);

    [[nodiscard]] const TopologySpec& spec() const { return spec_; }
    [[nodiscard]] uint32_t nr_cpus() const { return static_cast<uint32_t>(cpus_.size()); }
    [[nodiscard]] uint32_t nr_cores() const { return nr_cores_; }
    [[nodiscard]] uint32_t nr_l3() const { return static_cast<uint32_t>(l3_cpus_.size()); }
    [[nodiscard]] uint32_t nr_dies() const { return spec_.packages * spec_.dies_per_package; }
    [[nodiscard]] uint32_t nr_packages() const { return spec_.packages; }
    [[nodiscard]] uint32_t nr_nodes() const { return spec_.numa_nodes; }

    [[nodiscard]] const CpuInfo& cpu(CpuId c) const { return cpus_.at(c); }
    [[nodiscard]] const std::vector<CpuInfo>& cpus() const { return cpus_; }
    [[nodiscard]] uint32_t node_of(CpuId c) const { return cpu(c).node; }
    [[nodiscard]] uint32_t l3_of(CpuId c) const { return cpu(c).l3; }
    [[nodiscard]] uint32_t package_of(CpuId c) const { return cpu(c).package; }
    [[nodiscard]] uint32_t package_of_node(uint32_t node) const;
    [[nodiscard]] uint64_t hw_id(CpuId c) const { return cpu(c).hw_id; }

    // CPU lists in ascending CPU number. siblings() includes the CPU itself, like Linux's
    // topology_sibling_cpumask().
    [[nodiscard]] const std::vector<CpuId>& cpus_in_l3(uint32_t l3) const { return l3_cpus_.at(l3); }
    [[nodiscard]] const std::vector<CpuId>& cpus_in_node(uint32_t n) const { return node_cpus_.at(n); }
    [[nodiscard]] const std::vector<CpuId>& cpus_in_package(uint32_t p) const { return package_cpus_.at(p); }
    [[nodiscard]] const std::vector<CpuId>& siblings(CpuId c) const { return core_cpus_.at(cpu(c).core); }

    // Hot (every cache-line transfer and IPI): inline, no bounds check; a and b must be CPUs.
    [[nodiscard]] DistanceClass distance(CpuId a, CpuId b) const {
        const CpuInfo& x = cpus_[a];
        const CpuInfo& y = cpus_[b];
        if (a == b) return DistanceClass::self;
        if (x.core == y.core) return DistanceClass::smt;
        if (x.l3 == y.l3) return DistanceClass::same_l3;
        if (x.die == y.die) return DistanceClass::same_die;
        if (x.package == y.package) return DistanceClass::same_package;
        return DistanceClass::cross_package;
    }
    // Whether two CPUs of this machine are at this distance (e.g. no smt without SMT).
    [[nodiscard]] bool has_class(DistanceClass c) const;

    // "2 packages x 2 dies x 6 L3 x 4 cores x 1 threads = 96 CPUs, 4 NUMA nodes".
    [[nodiscard]] std::string summary() const;

private:
    TopologySpec spec_;
    uint32_t nr_cores_ = 0;
    std::vector<CpuInfo> cpus_;
    std::vector<std::vector<CpuId>> l3_cpus_;
    std::vector<std::vector<CpuId>> node_cpus_;
    std::vector<std::vector<CpuId>> package_cpus_;
    std::vector<std::vector<CpuId>> core_cpus_;
};

// Most CPUs a machine file may describe (Linux NR_CPUS on x86_64 defconfig-MAXSMP is 8192).
inline constexpr uint32_t kMaxCpus = 8192;

// The [topology] section's declaration (counts, numbering, hw id scheme).
const config::Schema<TopologySpec>& topology_schema();

// Reads and validates a [topology] table (calls finish()). x86 machines must use hw_id "apic"
// and at most 2 threads per core; arm64 machines an mpidr scheme.
TopologySpec parse_topology(config::Table table, bool is_x86);

}  // namespace ipisim::hw
