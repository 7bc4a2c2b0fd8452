#include "hw/hwloc_import.h"

#include <fmt/format.h>
#include <hwloc.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "config/error.h"
#include "config/writer.h"
#include "hw/machine_skeleton.h"

namespace ipisim::hw {

namespace {

struct TopologyDeleter {
    void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using HwlocTopology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
    throw config::ConfigError(path, 0, "(hwloc xml)", problem);
}

uint32_t count(hwloc_topology_t t, hwloc_obj_type_t type) {
    const int n = hwloc_get_nbobjs_by_type(t, type);
    return n > 0 ? static_cast<uint32_t>(n) : 0;
}

// Every object of `outer` type holds the same number of `inner` objects; returns it.
uint32_t uniform_inside(hwloc_topology_t t, hwloc_obj_type_t outer, hwloc_obj_type_t inner, const std::string& path) {
    const uint32_t n_outer = count(t, outer);
    const uint32_t expect = count(t, inner) / n_outer;
    for (uint32_t i = 0; i < n_outer; ++i) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, outer, i);
        const int got = hwloc_get_nbobjs_inside_cpuset_by_type(t, o->cpuset, inner);
        if (got != static_cast<int>(expect) || expect == 0) {
            fail(path, fmt::format("non-uniform topology: {} #{} holds {} {} objects, expected {}",
                                   hwloc_obj_type_string(outer), i, got, hwloc_obj_type_string(inner), expect));
        }
    }
    return expect;
}

std::string info(hwloc_topology_t t, hwloc_obj_type_t type, const char* name) {
    hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);
    if (o == nullptr) return "";
    const char* v = hwloc_obj_get_info_by_name(o, name);
    return v != nullptr ? v : "";
}

Vendor vendor_of(const std::string& cpu_vendor, bool x86) {
    if (cpu_vendor == "GenuineIntel") return Vendor::intel;
    if (cpu_vendor == "AuthenticAMD") return Vendor::amd;
    if (!x86 && cpu_vendor.find("HiSilicon") != std::string::npos) return Vendor::hisilicon;
    return Vendor::generic;
}

// What the XML says about the machine beyond its counts.
struct Host {
    TopologySpec topology;
    bool x86 = true;
    bool arch_named = false;
    Vendor vendor = Vendor::generic;
    std::string model;
    uint32_t renumbered = 0;  // CPUs whose Linux number differs from the model's numbering
};

// A file name in a comment line: no line breaks.
std::string comment_safe(std::string s) {
    for (char& c : s) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    return s;
}

Host read_host(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) fail(path, "cannot open file");
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) fail(path, "hwloc_topology_init failed");
    HwlocTopology topo(raw);
    if (hwloc_topology_set_xml(raw, path.c_str()) != 0) {
        fail(path, fmt::format("not a readable hwloc XML file ({})", std::strerror(errno)));
    }
    if (hwloc_topology_load(raw) != 0) fail(path, "hwloc could not load the XML topology");

    const uint32_t pus = count(raw, HWLOC_OBJ_PU);
    const uint32_t cores = count(raw, HWLOC_OBJ_CORE);
    if (pus == 0 || cores == 0) fail(path, "the topology has no Core or PU objects");
    TopologySpec s;
    s.packages = std::max(count(raw, HWLOC_OBJ_PACKAGE), 1U);
    uint32_t dies = std::max(count(raw, HWLOC_OBJ_DIE), s.packages);
    uint32_t l3 = count(raw, HWLOC_OBJ_L3CACHE);
    if (l3 == 0) l3 = dies;            // no L3 objects: one L3 domain per die
    if (l3 < dies) dies = s.packages;  // an L3 spanning several dies (Sapphire Rapids): dies merge
    if (dies % s.packages != 0 || l3 % dies != 0 || cores % l3 != 0 || pus % cores != 0) {
        fail(path, fmt::format("{} packages, {} dies, {} L3, {} cores, {} PUs do not nest evenly", s.packages, dies, l3,
                               cores, pus));
    }
    if (count(raw, HWLOC_OBJ_PACKAGE) > 0) uniform_inside(raw, HWLOC_OBJ_PACKAGE, HWLOC_OBJ_PU, path);
    if (count(raw, HWLOC_OBJ_L3CACHE) > 0) uniform_inside(raw, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_CORE, path);
    uniform_inside(raw, HWLOC_OBJ_CORE, HWLOC_OBJ_PU, path);
    s.dies_per_package = dies / s.packages;
    s.l3_per_die = l3 / dies;
    s.cores_per_l3 = cores / l3;
    s.threads_per_core = pus / cores;
    s.numa_nodes = std::max(count(raw, HWLOC_OBJ_NUMANODE), 1U);

    const std::string arch_name = info(raw, HWLOC_OBJ_MACHINE, "Architecture");
    const bool x86 = arch_name.empty() || arch_name == "x86_64" || arch_name == "i686";
    s.hw_id = x86 ? HwIdScheme::apic : HwIdScheme::mpidr_flat;
    if (s.threads_per_core > 1) {
        hwloc_obj_t pu0 = hwloc_get_obj_by_type(raw, HWLOC_OBJ_PU, 0);
        hwloc_obj_t pu1 = hwloc_get_obj_by_type(raw, HWLOC_OBJ_PU, 1);
        s.cpu_numbering = pu1->os_index == pu0->os_index + 1 ? CpuNumbering::smt_adjacent : CpuNumbering::smt_last;
    }
    Topology model;
    try {
        model = Topology(s);
    } catch (const std::invalid_argument& e) {
        fail(path, fmt::format("the model cannot hold this layout: {}", e.what()));
    }
    uint32_t renumbered = 0;
    for (uint32_t i = 0; i < pus; ++i) {
        const uint32_t core = i / s.threads_per_core;
        const uint32_t smt = i % s.threads_per_core;
        const CpuId expect =
            s.cpu_numbering == CpuNumbering::smt_last ? smt * cores + core : core * s.threads_per_core + smt;
        if (hwloc_get_obj_by_type(raw, HWLOC_OBJ_PU, i)->os_index != expect) ++renumbered;
    }

    Host host;
    host.topology = s;
    host.x86 = x86;
    host.arch_named = !arch_name.empty();
    host.vendor = vendor_of(info(raw, HWLOC_OBJ_PACKAGE, "CPUVendor"), x86);
    host.model = info(raw, HWLOC_OBJ_PACKAGE, "CPUModel");
    host.renumbered = renumbered;
    return host;
}

}  // namespace

std::string import_hwloc_xml(const std::string& path) {
    const Host host = read_host(path);
    const MachineSkeleton skeleton{host.topology, host.x86 ? Arch::x86 : Arch::arm64, host.vendor,
                                   (host.model.empty() ? std::string("imported machine") : host.model) +
                                       " (hwloc import, costs are placeholders)"};
    toml::table file;
    try {
        file = machine_skeleton(skeleton);
    } catch (const config::ConfigError& e) {
        fail(path, fmt::format("the model cannot hold this layout: {}: {}", e.key(), e.problem()));
    }
    std::string out = fmt::format("# Machine skeleton imported from {} by `ipisim machine import`.\n",
                                  comment_safe(std::filesystem::path(path).filename().string()));
    out +=
        "# [topology] comes from the XML. Every cost is a placeholder marked A with a placeholder range and\n"
        "# the source \"TODO: measure with ipisim probe\": the file loads and runs, but results mean nothing\n"
        "# until each value is replaced by a measurement or a cited public figure (docs/calibration.md).\n"
        "# Also check: clock (lscpu), [[idle]] (/sys/devices/system/cpu/cpu0/cpuidle/state*/{name,latency,\n"
        "# residency}), [intc] kind (dmesg: \"Switched APIC routing to\" / GICv3), tlb.invlpgb_count_max\n"
        "# (AMD Zen 3+: CPUID 0x80000008 EDX[15:0] + 1) and tlb.rar_payloads (Intel RAR).\n";
    if (!host.arch_named) out += "# The XML names no architecture: x86 assumed.\n";
    if (host.renumbered > 0) {
        out += fmt::format(
            "# NOTE: {} of {} CPUs of this host are numbered differently from cpu_numbering below;\n"
            "# the model renumbers them (topology counts are exact).\n",
            host.renumbered, Topology(host.topology).nr_cpus());
    }
    return out + config::to_toml_text(file);
}

}  // namespace ipisim::hw
