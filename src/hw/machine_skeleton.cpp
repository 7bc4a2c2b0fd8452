#include "hw/machine_skeleton.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "config/typed_value.h"
#include "config/writer.h"
#include "hw/intc/intc_type.h"
#include "hw/machine_schema.h"

namespace ipisim::hw {

namespace {

constexpr double kNs = 1000;  // ps
constexpr double kAutoRange = -1;

// A placeholder: value in the parameter's base unit (ps, kHz, plain), and its range (auto:
// half to twice the value, within the parameter's bounds).
struct Placeholder {
    double value;
    double lo = kAutoRange;
    double hi = kAutoRange;
};

// Round, conservative values so a skeleton runs; keyed by section.key ("idle" for [[idle]]).
const std::map<std::string, Placeholder, std::less<>>& placeholders() {
    static const std::map<std::string, Placeholder, std::less<>> p = {
        {"clock", {2'000'000, 1'000'000, 4'000'000}},
        {"coherence.l1_hit", {1 * kNs}},
        {"coherence.smt", {10 * kNs}},
        {"coherence.same_l3", {30 * kNs}},
        {"coherence.same_die", {80 * kNs}},
        {"coherence.same_package", {120 * kNs}},
        {"coherence.cross_package", {200 * kNs}},
        {"coherence.remote_home_extra", {90 * kNs}},
        {"coherence.memory_local", {90 * kNs}},
        {"coherence.memory_remote", {140 * kNs}},
        {"coherence.line_occupancy", {5 * kNs}},
        {"coherence.fill_buffers", {12, 10, 24}},
        {"coherence.store_buffer", {56, 42, 114}},
        {"cpu.irq_entry", {250 * kNs}},
        {"cpu.irq_exit", {150 * kNs}},
        {"cpu.eoi", {40 * kNs}},
        {"cpu.irq_pollution", {500 * kNs, 150 * kNs, 1500 * kNs}},
        {"cpu.context_switch", {600 * kNs}},
        {"cpu.syscall", {70 * kNs}},
        {"cpu.handle_mm_fault", {1900 * kNs, 900 * kNs, 3800 * kNs}},
        {"cpu.rdmsr", {50 * kNs}},
        {"cpu.wrmsr", {50 * kNs}},
        {"cpu.rdmsr_qm_ctr", {200 * kNs}},
        {"cpu.smt_throughput_percent", {60, 50, 100}},
        {"idle.exit_latency", {1000 * kNs}},
        {"idle.target_residency", {2000 * kNs}},
        {"idle.wake_latency", {250 * kNs, 100 * kNs, 500 * kNs}},  // below exit_latency's whole range
        {"intc.params.icr_write", {40 * kNs}},
        {"intc.params.icr_read", {30 * kNs}},
        {"intc.params.icr_busy", {150 * kNs}},
        {"intc.params.icr_busy_per_inflight", {20 * kNs}},
        {"intc.params.rar_reply", {300 * kNs}},
        {"intc.params.fence", {20 * kNs}},
        {"intc.params.sgi1r_write", {20 * kNs}},
        {"intc.params.dsb_st", {40 * kNs}},
        {"intc.params.dsb_ishst", {20 * kNs}},
        {"intc.params.isb", {10 * kNs}},
        {"intc.fabric.self", {300 * kNs}},
        {"intc.fabric.smt", {300 * kNs}},
        {"intc.fabric.same_l3", {400 * kNs}},
        {"intc.fabric.same_die", {450 * kNs}},
        {"intc.fabric.same_package", {500 * kNs}},
        {"intc.fabric.cross_package", {700 * kNs}},
        {"intc.fabric.capacity", {64}},
        {"intc.fabric.accept", {20 * kNs}},
        {"intc.fabric.router_service", {0, 0, 200 * kNs}},  // 0: no interrupt router modeled
        {"tlb.entries", {1536}},
        {"tlb.invlpg", {100 * kNs}},
        {"tlb.full_flush", {50 * kNs}},
        {"tlb.invpcid_addr", {100 * kNs}},
        {"tlb.invpcid_all", {400 * kNs}},
        {"tlb.refill_per_entry", {20 * kNs}},
        {"tlb.invlpgb_count_max", {0, 0, 64}},  // 0: none until CPUID says otherwise
        {"tlb.rar_payloads", {0, 0, 64}},
        {"tlb.tlbi_is", {20 * kNs}},
        {"tlb.dsb_ish", {1000 * kNs}},
    };
    return p;
}

double clamp_to(const config::ParamInfo& info, double v) {
    if (info.min) v = std::max(v, *info.min);
    if (info.max) v = std::min(v, *info.max);
    return info.type == config::ParamType::integer ? static_cast<double>(static_cast<int64_t>(v)) : v;
}

// The placeholder of section.key, or a generic one for a cost without an entry (a new
// controller's): within its bounds either way.
Placeholder placeholder(const std::string& key, const config::ParamInfo& info) {
    auto it = placeholders().find(key);
    Placeholder p =
        it != placeholders().end() ? it->second : Placeholder{info.type == config::ParamType::duration ? 100 * kNs : 1};
    p.value = clamp_to(info, p.value);
    // Auto: half to twice the value; durations of 2 ns and more in whole ns.
    const bool whole_ns = info.type == config::ParamType::duration && p.value >= 2 * kNs;
    if (p.lo == kAutoRange) p.lo = whole_ns ? std::floor(p.value / 2 / kNs) * kNs : p.value / 2;
    if (p.hi == kAutoRange) p.hi = whole_ns ? std::ceil(p.value * 2 / kNs) * kNs : p.value * 2;
    p.lo = clamp_to(info, p.lo);
    p.hi = clamp_to(info, p.hi);
    return p;
}

// The marked placeholder of a cost.
toml::table marked_placeholder(const std::string& key, const config::ParamInfo& info, bool amd) {
    toml::table marked;
    if (key == "intc.params.fence" && amd) {
        marked.insert_or_assign("value", config::duration_text(sim::Picos::zero()));
        marked.insert_or_assign("mark", "P");
        marked.insert_or_assign("source",
                                "weak_wrmsr_fence is a no-op on AMD (X86_FEATURE_APIC_MSRS_FENCE clear; "
                                "docs/mechanisms.md 4.2)");
    } else {
        const Placeholder ph = placeholder(key, info);
        config::with_typed_value(info.type, ph.value, [&](auto&& v) { marked.insert_or_assign("value", v); });
        marked.insert_or_assign("mark", "A");
        marked.insert_or_assign("range", config::typed_range(info.type, ph.lo, ph.hi));
        marked.insert_or_assign("source", kPlaceholderSource);
    }
    marked.is_inline(true);
    return marked;
}

struct Filler {
    const config::Conditions& conds;
    bool amd = false;

    [[nodiscard]] bool applies(const config::ParamInfo& info) const {
        if (info.when.empty()) return true;
        auto it = conds.find(info.when);
        return it != conds.end() && it->second;  // conditions set by values (INVLPGB, RAR): off
    }

    // A section: every applicable cost a marked placeholder, every other value from `plain`.
    [[nodiscard]] toml::table section(const config::SchemaInfo& info, const std::string& name,
                                      const toml::table& plain = {}) const {
        toml::table out;
        for (const config::ParamInfo& p : info.params) {
            if (!applies(p)) continue;
            const std::string key = name.empty() ? p.key : name + "." + p.key;
            if (p.cost) {
                out.insert_or_assign(p.key, marked_placeholder(key, p, amd));
            } else if (const toml::node* v = plain.get(p.key)) {
                v->visit([&](const auto& x) { out.insert_or_assign(p.key, x); });
            } else {
                throw std::logic_error("machine skeleton: no value for " + key);
            }
        }
        return out;
    }
};

const IntcType& default_intc(Arch arch) {
    // Linux's default with x2APIC enabled and no FADT APIC_PHYSICAL flag; GICv3 on arm64.
    for (const char* preferred : {"x2apic_cluster", "gicv3"}) {
        const IntcType* t = find_intc_type(preferred);
        if (t != nullptr && t->exists_on(arch)) return *t;
    }
    for (const IntcType* t : intc_types()) {
        if (t->exists_on(arch)) return *t;
    }
    throw std::logic_error(fmt::format("no interrupt controller is registered for {}", to_string(arch)));
}

}  // namespace

toml::table machine_skeleton(const MachineSkeleton& s) {
    const Topology topo(s.topology);
    const config::Conditions conds = machine_conditions(s.arch, topo);
    const Filler filler{conds, s.vendor == Vendor::amd};

    toml::table root_plain;
    root_plain.insert_or_assign("description", s.description);
    root_plain.insert_or_assign("arch", std::string(to_string(s.arch)));
    root_plain.insert_or_assign("vendor", std::string(to_string(s.vendor)));
    toml::table file = filler.section(machine_root_schema().info(), "", root_plain);

    toml::table topology;
    topology_schema().write(s.topology, topology);
    file.insert_or_assign("topology", std::move(topology));
    file.insert_or_assign("coherence", filler.section(coherence_schema().info(), "coherence"));
    file.insert_or_assign("cpu", filler.section(cpu_schema().info(), "cpu"));

    toml::table c1;
    c1.insert_or_assign("name", "C1");
    // x86 C1: MWAIT (intel_idle, and acpi_idle's FFH C1 on AMD); arm64: WFI.
    const IdleMechanism c1_mechanism = s.arch == Arch::x86 ? IdleMechanism::mwait : IdleMechanism::wfi;
    c1.insert_or_assign("mechanism", std::string(to_string(c1_mechanism)));
    toml::array idle;
    idle.push_back(filler.section(idle_schema().info(), "idle", c1));
    file.insert_or_assign("idle", std::move(idle));

    const IntcType& kind = default_intc(s.arch);
    toml::table intc_plain;
    intc_plain.insert_or_assign("kind", kind.name);
    toml::table intc = filler.section(intc_schema().info(), "intc", intc_plain);
    intc.insert_or_assign("params", filler.section(kind.params_info(), "intc.params"));
    intc.insert_or_assign("fabric", filler.section(fabric_schema().info(), "intc.fabric"));
    file.insert_or_assign("intc", std::move(intc));

    toml::table tlb_plain;
    tlb_plain.insert_or_assign("pcid", true);
    tlb_plain.insert_or_assign("nr_dyn_asids", 6);  // TLB_NR_DYN_ASIDS, arch/x86/mm/tlb.c
    file.insert_or_assign("tlb", filler.section(tlb_schema().info(), "tlb", tlb_plain));

    // The schema decides what loads; loading checks it (and the topology).
    const MachineSpec spec = load_machine(config::Document::parse(config::to_toml_text(file), "skeleton"), "skeleton");
    return write_machine(spec);
}

}  // namespace ipisim::hw
