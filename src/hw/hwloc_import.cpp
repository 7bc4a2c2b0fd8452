#include "hw/hwloc_import.h"

#include <fmt/format.h>
#include <hwloc.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "config/error.h"
#include "hw/machine.h"

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

std::string vendor_of(const std::string& cpu_vendor, bool x86) {
    if (cpu_vendor == "GenuineIntel") return "intel";
    if (cpu_vendor == "AuthenticAMD") return "amd";
    if (!x86 && cpu_vendor.find("HiSilicon") != std::string::npos) return "hisilicon";
    return "generic";
}

// Placeholder cost sections. Each value is a round [A] default so the file loads and runs.
std::string cost_sections(const Topology& topo, bool x86, bool amd) {
    const std::string todo = "# [A] TODO: measure (ipisim probe, or a cited public figure)";
    auto classes = [&](const char* base_ns[]) {
        std::string s;
        for (size_t i = 1; i < kDistanceClasses; ++i) {
            if (topo.has_class(kAllDistanceClasses[i])) {
                s += fmt::format("{} = \"{} ns\"   {}\n", to_string(kAllDistanceClasses[i]), base_ns[i], todo);
            }
        }
        return s;
    };
    const char* transfer_ns[] = {"1", "10", "30", "80", "120", "200"};
    const char* delivery_ns[] = {"300", "300", "400", "450", "500", "700"};
    std::string out;
    out += "\n[coherence]\n";
    out += fmt::format("l1_hit = \"1 ns\"   {}\n", todo);
    out += classes(transfer_ns);
    if (topo.nr_packages() > 1) {
        out += fmt::format("remote_home_extra = \"90 ns\"   {}\n", todo);
        out += fmt::format("memory_remote = \"140 ns\"   {}\n", todo);
    }
    out += fmt::format("memory_local = \"90 ns\"   {}\n", todo);
    out += fmt::format("line_occupancy = \"5 ns\"   {}\n", todo);

    out += "\n[cpu]\n";
    for (const char* kv :
         {"irq_entry = \"250 ns\"", "irq_exit = \"150 ns\"", "eoi = \"40 ns\"", "context_switch = \"600 ns\"",
          "syscall = \"70 ns\"", "rdmsr = \"50 ns\"", "wrmsr = \"50 ns\"", "rdmsr_qm_ctr = \"200 ns\""}) {
        out += fmt::format("{}   {}\n", kv, todo);
    }
    if (topo.has_class(DistanceClass::smt)) out += fmt::format("smt_throughput_percent = 60   {}\n", todo);

    out += "\n# Idle states: copy them from /sys/devices/system/cpu/cpu0/cpuidle/state*/{name,latency,residency}.\n";
    out += fmt::format(
        "[[idle]]\nname = \"C1\"\nexit_latency = \"1 us\"   {}\ntarget_residency = \"2 us\"\npolling = false\n", todo);

    out += "\n# Interrupt controller: check dmesg for \"Switched APIC routing to\" / GICv3.\n[intc]\n";
    if (x86) {
        out +=
            "kind = \"x2apic_cluster\"   # [A] TODO: check (x2apic_phys, x2apic_cluster, "
            "xapic_mmio)\n\n[intc.params]\n";
        out += fmt::format("icr_write = \"40 ns\"   {}\n", todo);
        out += fmt::format("fence = \"{}\"   {}\n", amd ? "0 ns" : "20 ns", todo);
    } else {
        out += "kind = \"gicv3\"\n\n[intc.params]\n";
        for (const char* kv :
             {"sgi1r_write = \"20 ns\"", "dsb_st = \"40 ns\"", "dsb_ishst = \"20 ns\"", "isb = \"10 ns\""}) {
            out += fmt::format("{}   {}\n", kv, todo);
        }
    }
    out += "\n[intc.fabric]\n";
    out += fmt::format("self = \"300 ns\"   {}\n", todo);
    out += classes(delivery_ns);
    out += fmt::format("capacity = 64   {}\n", todo);
    out += fmt::format("accept = \"20 ns\"   {}\n", todo);
    out += fmt::format("router_service = \"0 ns\"   {} (per-package interrupt router, docs/mechanisms.md 3.5)\n", todo);

    out += "\n[tlb]\n";
    out += fmt::format("entries = 1536   {}\n", todo);
    out += fmt::format("invlpg = \"100 ns\"   {}\n", todo);
    out += fmt::format("full_flush = \"50 ns\"   {}\n", todo);
    if (x86) {
        out += fmt::format("invpcid_addr = \"100 ns\"   {}\n", todo);
        out += fmt::format("invpcid_all = \"400 ns\"   {}\n", todo);
    }
    out += fmt::format("refill_per_entry = \"20 ns\"   {}\n", todo);
    out += "pcid = true\nnr_dyn_asids = 6   # TLB_NR_DYN_ASIDS\n";
    if (x86) {
        out +=
            "invlpgb_count_max = 0   # TODO: (CPUID 0x80000008 EDX[15:0]) + 1 on AMD Zen 3+, then set invlpgb_issue "
            "and tlbsync\n";
        out += "rar_payloads = 0   # TODO: Intel RAR (Sapphire Rapids+): set the slot count and rar_per_payload\n";
    } else {
        out += fmt::format("tlbi_is = \"20 ns\"   {}\n", todo);
        out += fmt::format("dsb_ish = \"1 us\"   {}\n", todo);
    }
    return out;
}

}  // namespace

std::string import_hwloc_xml(const std::string& path) {
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

    const std::string cpu_vendor = info(raw, HWLOC_OBJ_PACKAGE, "CPUVendor");
    const std::string model_name = info(raw, HWLOC_OBJ_PACKAGE, "CPUModel");
    const std::string vendor = vendor_of(cpu_vendor, x86);
    std::string out;
    out += fmt::format("# Machine skeleton imported from {} by `ipisim machine import`.\n",
                       std::filesystem::path(path).filename().string());
    out +=
        "# The [topology] section comes from the XML. Every cost below is a placeholder marked\n"
        "# \"[A] TODO: measure\": it loads and runs, but results mean nothing until each value is\n"
        "# replaced by a measurement or a cited public figure (see docs/calibration.md).\n";
    if (renumbered > 0) {
        out += fmt::format(
            "# NOTE: {} of {} CPUs of this host are numbered differently from cpu_numbering below;\n"
            "# the model renumbers them (topology counts are exact).\n",
            renumbered, pus);
    }
    out += fmt::format("description = \"{}{}\"\n", model_name.empty() ? "imported machine" : model_name,
                       " (hwloc import, costs are placeholders)");
    out += fmt::format("arch = \"{}\"{}\n", x86 ? "x86" : "arm64",
                       arch_name.empty() ? "   # [A] the XML names no architecture" : "");
    out += fmt::format("vendor = \"{}\"\n", vendor);
    out += "clock = \"2.0 GHz\"   # [A] TODO: nominal clock from /proc/cpuinfo model name or lscpu\n\n";
    out += format_topology(s);
    out += cost_sections(model, x86, vendor == "amd");
    return out;
}

}  // namespace ipisim::hw
