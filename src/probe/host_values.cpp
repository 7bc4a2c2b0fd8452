#include "probe/host_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "config/table.h"
#include "probe/host_file.h"

namespace ipisim::probe {

namespace {

// One marked cost `{ value, mark, range = [lo, hi], source }` (docs/calibration.md), for text
// values with units ("12.5 ns") and for plain counts alike.
template <typename V>
toml::table marked(const V& value, const char* mark, const V& lo, const V& hi, const std::string& source) {
    toml::table t;
    t.insert_or_assign("value", value);
    t.insert_or_assign("mark", mark);
    toml::array range;
    range.push_back(lo);
    range.push_back(hi);
    t.insert_or_assign("range", std::move(range));
    t.insert_or_assign("source", source);
    return t;
}

toml::table marked_int(int64_t value, int64_t lo, int64_t hi, const std::string& why) {
    return marked<int64_t>(value, "A", lo, hi, why);
}

std::string skip_reason(const ProbeResults& r, const std::string& what) {
    for (const Skipped& s : r.skipped) {
        if (s.what.find(what) != std::string::npos) return s.why;
    }
    return "not measured";
}

// Transfer latency assumptions by class when the ping-pong could not run (the importer's
// placeholders, with ranges spanning docs/calibration.md's core-to-core table).
struct ClassAssumption {
    double ns, lo, hi;
};
ClassAssumption transfer_assumption(hw::DistanceClass c) {
    switch (c) {
        case hw::DistanceClass::smt:
            return {10, 5, 15};
        case hw::DistanceClass::same_l3:
            return {30, 15, 70};
        case hw::DistanceClass::same_die:
            return {80, 30, 140};
        case hw::DistanceClass::same_package:
            return {120, 80, 270};
        default:
            return {200, 100, 310};
    }
}

}  // namespace

HostValues::HostValues(const ProbeResults& r, const toml::table& root) : r_(r) {
    x86_ = root["arch"].value_or(std::string("x86")) == "x86";
    amd_ = root["vendor"].value_or(std::string()) == "amd";
    intel_ = root["vendor"].value_or(std::string()) == "intel";
    vm_ = r.info.virtualized();
    if (r.core_clock_mhz.n > 0) {
        mhz_ = r.core_clock_mhz.median;
        clock_basis_ = fmt::format("at the measured {:.0f} MHz", mhz_);
    } else if (r.info.reported_mhz > 0) {
        mhz_ = r.info.reported_mhz;
        clock_basis_ = fmt::format("at the reported {:.0f} MHz", mhz_);
    } else {
        clock_basis_ = "at an assumed 2000 MHz";
    }
    config::Table topo(root["topology"].as_table(), "(host.toml)", "topology");
    model_ = hw::Topology(hw::parse_topology(topo, x86_));
}

toml::table HostValues::observed_int(int64_t value, const std::string& what) const {
    return marked<int64_t>(value, "P", value, value,
                           fmt::format("ipisim probe {} `{}`: {}", r_.date, r_.command, what));
}

toml::table HostValues::measured_ns(const Spread& s, const std::string& method) const {
    const std::string source =
        fmt::format("ipisim probe {} `{}`: {}; median of {}, spread min {:.1f}, p25 {:.1f}, p75 {:.1f}, max {:.1f} ns",
                    r_.date, r_.command, method, s.n, s.min, s.p25, s.p75, s.max);
    return marked(ns_text(s.median), "P", ns_text(s.p5), ns_text(s.p95), source);
}

toml::table HostValues::assumed_ns(double ns, double lo, double hi, const std::string& why) {
    return marked(ns_text(ns), "A", ns_text(lo), ns_text(hi), why);
}

toml::table HostValues::assumed_cycles(double cycles, double lo, double hi, const std::string& why) const {
    const double per_ns = mhz_ / 1000.0;
    return assumed_ns(cycles / per_ns, lo / per_ns, hi / per_ns,
                      fmt::format("{} cycles (range {}-{}) {}: {}", cycles, lo, hi, clock_basis_, why));
}

toml::table HostValues::measured_or_assumed(const Spread& s, const std::string& method, double ns, double lo, double hi,
                                            const std::string& why) const {
    if (s.n > 0) return measured_ns(s, method);
    return assumed_ns(ns, lo, hi, why);
}

toml::table HostValues::clock() const {
    const Spread& s = r_.core_clock_mhz;
    if (s.n > 0) {
        return marked(
            fmt::format("{:.0f} MHz", s.median), "P", fmt::format("{:.0f} MHz", s.p5), fmt::format("{:.0f} MHz", s.p95),
            fmt::format(
                "ipisim probe {} `{}`: a chain of dependent 64-bit multiplies (3 cycles each) on CPU {}; median "
                "of {}, spread min {:.0f}, max {:.0f} MHz",
                r_.date, r_.command, r_.caller_cpu, s.n, s.min, s.max));
    }
    const double mhz = r_.info.reported_mhz > 0 ? r_.info.reported_mhz : 2000;
    return marked(fmt::format("{:.0f} MHz", mhz), "A", fmt::format("{:.0f} MHz", mhz * 0.75),
                  fmt::format("{:.0f} MHz", mhz * 1.25),
                  r_.info.reported_mhz > 0 ? "/proc/cpuinfo \"cpu MHz\" (not measured: the core may run faster)"
                                           : "no clock measured or reported: a nominal 2 GHz");
}

toml::table HostValues::coherence() const {
    toml::table t;
    t.insert_or_assign("l1_hit", assumed_cycles(4.5, 4, 5, "L1D load-to-use latency (not measured)"));
    for (hw::DistanceClass c : hw::kAllDistanceClasses) {
        if (c == hw::DistanceClass::self) continue;
        const ClassLatency* m = nullptr;
        for (const ClassLatency& l : r_.cacheline) {
            if (l.distance == c) m = &l;
        }
        const std::string key(hw::to_string(c));
        if (m != nullptr && m->one_way_ns.n > 0) {
            std::string pairs;
            for (size_t i = 0; i < m->pairs.size() && i < 4; ++i) {
                pairs += fmt::format("{}{}<->{}", i ? ", " : "", m->pairs[i].first, m->pairs[i].second);
            }
            if (m->pairs.size() > 4) pairs += ", ...";
            const std::string method = fmt::format(
                "CAS ping-pong RTT/2, {} pair(s) ({}), {} round trips per sample{}", m->pairs.size(), pairs,
                m->round_trips_per_sample,
                vm_ ? " (a VM: the host's placement of the vCPUs at the time decides the physical distance)" : "");
            t.insert_or_assign(key, measured_ns(m->one_way_ns, method));
        } else if (model_.has_class(c)) {
            const ClassAssumption a = transfer_assumption(c);
            t.insert_or_assign(key, assumed_ns(a.ns, a.lo, a.hi,
                                               "cache-line transfer not measured (" + skip_reason(r_, "cache-line") +
                                                   "); range spans docs/calibration.md's core-to-core table"));
        }
    }
    if (model_.nr_packages() > 1) {
        t.insert_or_assign("remote_home_extra", assumed_ns(90, 50, 150,
                                                           "line homed in the other package: Milan 108 -> 200 ns, "
                                                           "Skylake-SP 112 -> 176 ns (docs/calibration.md)"));
        t.insert_or_assign("memory_remote", assumed_ns(140, 100, 250, "remote DRAM load latency (not measured)"));
    }
    t.insert_or_assign("memory_local", assumed_ns(100, 70, 150, "local DRAM idle load latency (not measured)"));
    t.insert_or_assign("line_occupancy",
                       assumed_ns(5, 0, 20, "L3/directory occupancy per transaction (not measurable from user space)"));
    t.insert_or_assign("fill_buffers",
                       marked_int(12, 10, 24,
                                  "L1D misses in flight per core (line fill buffers / miss address buffers): not "
                                  "measured; range: Skylake's 10-12 to Zen 3's 24"));
    t.insert_or_assign("store_buffer",
                       marked_int(56, 36, 114,
                                  "store-buffer entries per core: not measured; range: Sandy Bridge's 36 to Golden "
                                  "Cove's 114 (Skylake 56, Zen 2 48, Zen 3 64)"));
    return t;
}

toml::table HostValues::cpu() const {
    toml::table t;
    const std::string vm_entry =
        vm_ ? "; in a VM the interrupt is injected at VM entry and the guest's entry code runs at native speed" : "";
    const std::string split =
        "an IPI costs its target ~1212 cycles (stanford-mast/shinjuku#5, docs/calibration.md), split 600 entry / 400 "
        "exit / 200 EOI as in machines/sapphire_rapids_30c.toml";
    // In a VM the entry also stands for the injection: unless the host posts the interrupt to
    // the running vCPU, the target exits to the host and re-enters with it, which the probe's
    // lost-time measurement sees (fitted below, cli/probe_fit.cpp).
    t.insert_or_assign(
        "irq_entry",
        vm_ ? assumed_cycles(600, 300, 60000,
                             split + "; in a VM the interrupt's injection is charged here: from native speed "
                                     "(a posted interrupt) to tens of microseconds (an exit to the host and "
                                     "re-entry), the range's top ~17 us at 3.5 GHz")
            : assumed_cycles(600, 300, 1200, split));
    t.insert_or_assign("irq_exit", assumed_cycles(400, 200, 800, split + vm_entry));
    t.insert_or_assign(
        "eoi", assumed_cycles(200, 50, 400, split + (vm_ ? "; a KVM guest's paravirtual EOI avoids the VM exit" : "")));
    t.insert_or_assign(
        "irq_pollution",
        assumed_cycles(1000, 300, 3000,
                       "indirect cost of an interrupt to the code it interrupts (pipeline refill; cache, TLB and "
                       "branch-predictor state evicted by the handler): FlexSC (Soares & Stumm, OSDI'10) shows IPC "
                       "recovering over thousands of cycles after one syscall; an IPI handler's footprint is smaller, "
                       "so of the order of its ~1212-cycle direct cost (docs/calibration.md); not measurable by the "
                       "probe"));
    t.insert_or_assign(
        "context_switch",
        measured_or_assumed(r_.pipe_same_cpu_ns,
                            fmt::format("pipe ping-pong of two threads on CPU {}, half round trip (a write, a wake-up, "
                                        "a context switch, a read)",
                                        r_.caller_cpu),
                            600, 400, 3000, "CFS context switch, ghOSt SOSP'21 (docs/calibration.md); not measured"));
    t.insert_or_assign(
        "syscall", measured_or_assumed(r_.syscall_ns, fmt::format("getppid() loop on CPU {}", r_.caller_cpu), 72, 50,
                                       300, "null syscall, ghOSt SOSP'21 (docs/calibration.md); not measured"));
    if (x86_) {
        // Fitted below (cli/probe_fit.cpp) to this host's own one-thread MADV_DONTNEED + refault loop
        // when the probe measured it.
        t.insert_or_assign(
            "handle_mm_fault",
            assumed_cycles(3698, 900, 15000,
                           "the sapphire_rapids_30c fit to seed 000's 1-thread row (3698 cycles), taken per cycle; "
                           "range: a quarter to 4x (kernel configuration, IPC, page-table walk, entry mitigations, "
                           "a VM's nested paging); the probe fits it to its own refault loop"));
    }
    if (vm_) {
        const std::string exits =
            "in a KVM guest an MSR access exits to the host; an x2APIC IPI costs 4338 guest cycles from send to "
            "handler completion without IPI virtualization (docs/mechanisms.md 7.1), taken as the scale of one exit";
        t.insert_or_assign("rdmsr", assumed_cycles(2000, 1000, 4338, exits));
        t.insert_or_assign("wrmsr", assumed_cycles(2000, 1000, 4338, exits));
        t.insert_or_assign("rdmsr_qm_ctr", assumed_cycles(2500, 1000, 6000, exits + " (resctrl is rarely exposed)"));
    } else {
        t.insert_or_assign("rdmsr",
                           assumed_cycles(150, 100, 200, "RDMSR APERF/MPERF 100-200 cycles (docs/calibration.md)"));
        t.insert_or_assign("wrmsr", assumed_cycles(100, 50, 200, "a non-serializing MSR write (not measured)"));
        const double ratio = amd_ ? 2.0 : 4.5;
        t.insert_or_assign("rdmsr_qm_ctr",
                           assumed_cycles(100 * ratio, 100, 900,
                                          fmt::format("{}x a PQR_ASSOC write on {} (Newman 2023, docs/calibration.md)",
                                                      ratio, amd_ ? "AMD" : "Intel")));
    }
    if (model_.has_class(hw::DistanceClass::smt)) {
        t.insert_or_assign(
            "smt_throughput_percent",
            marked_int(60, 50, 80, "two busy siblings each run at ~60% (SMT yield ~1.2x; not measured)"));
    }
    return t;
}

toml::array HostValues::idle() const {
    toml::array out;
    const auto state = [](const std::string& name, toml::table exit, toml::table residency, toml::table wake,
                          hw::IdleMechanism mechanism) {
        toml::table s;
        s.insert_or_assign("name", name);
        s.insert_or_assign("exit_latency", std::move(exit));
        s.insert_or_assign("target_residency", std::move(residency));
        s.insert_or_assign("wake_latency", std::move(wake));
        s.insert_or_assign("mechanism", std::string(hw::to_string(mechanism)));
        return s;
    };
    const Cpuidle& c = r_.cpuidle;
    double last_exit = 0;
    for (const CpuidleState& s : c.states) {
        if (s.disabled || s.exit_latency_us < last_exit) continue;
        last_exit = s.exit_latency_us;
        const std::string src = fmt::format(
            "ipisim probe {} `{}`: /sys/devices/system/cpu/cpu{}/cpuidle, driver {}, declared by the driver (the "
            "governor's worst case, not a measured wake time)",
            r_.date, r_.command, r_.caller_cpu, c.driver);
        const double ex = s.exit_latency_us * 1000;
        const double res = s.target_residency_us * 1000;
        const hw::IdleMechanism mechanism = idle_mechanism(s, out.empty(), x86_ ? hw::Arch::x86 : hw::Arch::arm64);
        const bool polling = mechanism == hw::IdleMechanism::poll;
        // sysfs gives only the declared bound: the wake time is assumed, half of it, anywhere from
        // a tenth to all of it (docs/calibration.md: measured wake-ups lie below the declared values).
        toml::table wake = polling ? marked(ns_text(0), "P", ns_text(0), ns_text(0),
                                            "POLL: the CPU runs the poll loop (drivers/cpuidle/poll_state.c), "
                                            "no hardware exit")
                                   : assumed_ns(std::round(ex / 2), std::round(ex / 10), ex,
                                                "half the declared exit latency (range: a tenth to all of it); "
                                                "sysfs gives only the declared worst case, no wake time was "
                                                "measured");
        out.push_back(state(s.name, marked(ns_text(ex), "P", ns_text(ex), ns_text(ex), src),
                            marked(ns_text(res), "P", ns_text(res), ns_text(res), src), std::move(wake), mechanism));
    }
    if (!out.empty()) return out;
    double wake_hi = 50'000;
    for (const WakeFigure& w : r_.futex_wake) wake_hi = std::max(wake_hi, w.wake_ns.p95);
    const std::string why =
        "no cpuidle states (" + c.absent_reason + "): the kernel halts with HLT, which ACPI C1 declares at 1 us" +
        (vm_ ? "; in a VM the wake is the host's vCPU wake-up, see the futex wake-up by idle time in probe.json" : "");
    out.push_back(state("HLT", assumed_ns(1000, 1000, wake_hi, why), assumed_ns(2000, 1000, 10'000, why),
                        assumed_ns(500, 100, 1000, "half the assumed HLT exit latency, at most all of it; " + why),
                        x86_ ? hw::IdleMechanism::hlt : hw::IdleMechanism::wfi));
    return out;
}

toml::table HostValues::intc_params(const std::string& kind) const {
    toml::table p;
    if (!x86_) {
        p.insert_or_assign("sgi1r_write", assumed_ns(20, 10, 100, "one ICC_SGI1R_EL1 write (not measured)"));
        p.insert_or_assign("dsb_st", assumed_ns(40, 20, 200, "full-system store barrier (not measured)"));
        p.insert_or_assign("dsb_ishst", assumed_ns(20, 10, 100, "inner-shareable store barrier (not measured)"));
        p.insert_or_assign("isb", assumed_ns(10, 5, 50, "instruction barrier (not measured)"));
        return p;
    }
    const std::string vm_send =
        "in a KVM guest the ICR write (or the kvm_send_ipi_mask hypercall with paravirtual IPIs) is a VM exit; "
        "an x2APIC IPI costs 4338 guest cycles from send to handler completion without IPI virtualization "
        "(docs/mechanisms.md 7.1): about half assumed spent in the sender's exit; the range is wide because a "
        "VM's exit cost depends on the host (IPI virtualization, host load)";
    if (kind == "xapic_mmio") {
        p.insert_or_assign("icr_write", vm_ ? assumed_cycles(2000, 1000, 10000, vm_send)
                                            : assumed_ns(30, 15, 100, "one uncached MMIO write to the local APIC"));
        p.insert_or_assign("icr_read", vm_ ? assumed_cycles(2000, 1000, 10000, vm_send)
                                           : assumed_ns(30, 15, 100, "one MMIO read of ICR per poll"));
        p.insert_or_assign("icr_busy", assumed_ns(150, 50, 500, "ICR delivery-status busy time (unpublished)"));
        p.insert_or_assign("icr_busy_per_inflight",
                           assumed_ns(20, 0, 100, "busy time grows with IPIs in flight (docs/mechanisms.md 3.4)"));
        // The RAR round trip (docs/mechanisms.md 3.5) matters only with RAR, which a probed
        // host leaves out (tlb.rar_payloads = 0).
        p.insert_or_assign("rar_round_trip", false);
        return p;
    }
    p.insert_or_assign("icr_write", vm_ ? assumed_cycles(2000, 1000, 10000, vm_send)
                                        : assumed_cycles(100, 50, 300,
                                                         "one WRMSR to the x2APIC ICR: tens to ~100 ns "
                                                         "(docs/mechanisms.md 7.1)"));
    p.insert_or_assign("fence",
                       amd_ ? assumed_ns(0, 0, 20,
                                         "weak_wrmsr_fence is patched out on AMD (X86_FEATURE_APIC_MSRS_FENCE "
                                         "clear, docs/mechanisms.md 4)")
                            : assumed_cycles(45, 30, 60, "mfence; lfence once per send (docs/mechanisms.md 7.1)"));
    return p;
}

toml::table HostValues::fabric() const {
    toml::table f;
    const std::string bare =
        "ICR write to pending at the target: bare metal 0.5-1.5 us one-way including the receive "
        "entry (docs/mechanisms.md 7.1), minus the entry";
    const std::string vm =
        "KVM guest: one-way IPI 1.32-1.45 us (docs/mechanisms.md 7.1, ipi_benchmark), of which "
        "the sender's exit (icr_write) and the receive entry are modelled separately; wide range: "
        "the host decides (posted interrupt to a running vCPU, or a host IPI and VM exit), up to 20 us "
        "when the target vCPU is not running and the host must wake and enter it";
    const std::string& why = vm_ ? vm : bare;
    f.insert_or_assign("self", vm_ ? assumed_ns(500, 200, 5000, vm) : assumed_ns(200, 100, 500, "a self-IPI; " + bare));
    for (hw::DistanceClass c : hw::kAllDistanceClasses) {
        if (c == hw::DistanceClass::self || !model_.has_class(c)) continue;
        double ns = vm_ ? 500 : 400;
        if (c == hw::DistanceClass::same_package) ns += 100;
        if (c == hw::DistanceClass::cross_package) ns += 300;
        f.insert_or_assign(std::string(hw::to_string(c)),
                           vm_ ? assumed_ns(ns, 200, 20000, why) : assumed_ns(ns, 200, 1200, why));
    }
    f.insert_or_assign("capacity", marked_int(64, 16, 256, "messages in flight machine-wide (unpublished)"));
    f.insert_or_assign("accept", assumed_ns(20, 5, 100, "latching one message into the IRR (unpublished)"));
    f.insert_or_assign(
        "router_service",
        intel_ ? assumed_ns(120, 0, 200,
                            "occupancy per message of the socket's interrupt router (Intel's Ubox, "
                            "docs/mechanisms.md 3.5), not measured: the order of the 130 ns fitted on "
                            "Sapphire Rapids")
               : assumed_ns(0, 0, 200,
                            "no per-socket interrupt router like Intel's Ubox is documented for this vendor "
                            "(docs/mechanisms.md 3.5): not modeled"));
    return f;
}

toml::table HostValues::intc() const {
    toml::table t;
    std::string why;
    const std::string kind = x86_ ? intc_kind(r_.info, &why) : "gicv3";
    t.insert_or_assign("kind", kind);
    t.insert_or_assign("params", intc_params(kind));
    t.insert_or_assign("fabric", fabric());
    return t;
}

toml::table HostValues::tlb() const {
    toml::table t;
    t.insert_or_assign(
        "entries",
        marked_int(2048, 512, 4096, "second-level TLB entries (Zen 3 / Golden Cove STLB: 2048; not measured)"));
    t.insert_or_assign(
        "invlpg", assumed_ns(100, 50, 250, "one-page flush ~100 ns (tlb.c), 216-260 cycles (docs/calibration.md)"));
    t.insert_or_assign("full_flush", assumed_cycles(96, 50, 250,
                                                    "CR3 reload without refill (Ingo Molnar 2015, "
                                                    "docs/calibration.md)"));
    const std::string refill =
        vm_ ? "page walk per entry touched again; a VM's two-dimensional walk costs more "
              "(not measured)"
            : "page walk per entry touched again, cache-resident tables (docs/mechanisms.md 7.2)";
    if (x86_) {
        t.insert_or_assign(
            "invpcid_addr",
            assumed_ns(150, 80, 300, "INVPCID one address, similar to or above INVLPG (docs/mechanisms.md 7.2)"));
        t.insert_or_assign("invpcid_all",
                           assumed_ns(376, 200, 800, "INVPCID all-context 376 ns on Skylake (docs/calibration.md)"));
    }
    t.insert_or_assign("refill_per_entry", vm_ ? assumed_ns(30, 10, 100, refill) : assumed_ns(20, 5, 60, refill));
    t.insert_or_assign("pcid", x86_ ? r_.info.has_flag("pcid") : true);
    if (x86_) {
        t.insert_or_assign("nr_dyn_asids", 6);
        // INVLPGB is only used when the CPU (and, in a VM, the hypervisor) exposes it.
        t.insert_or_assign(
            "invlpgb_count_max",
            r_.info.has_flag("invlpgb")
                ? marked_int(0, 0, 0,
                             "/proc/cpuinfo has the invlpgb flag, but the probe does not read its page count "
                             "(CPUID 0x80000008 EDX[15:0]): INVLPGB is left out, the model runs the IPI shootdown")
                : observed_int(0, "/proc/cpuinfo flags lack invlpgb: the kernel cannot use INVLPGB here"));
        t.insert_or_assign("rar_payloads",
                           amd_ ? observed_int(0, "an AMD CPU (/proc/cpuinfo vendor_id): RAR is Intel-only")
                                : marked_int(0, 0, 0,
                                             "RAR is not visible from user space and upstream Linux does not use "
                                             "it (seed 000's series): left out"));
    } else {
        t.insert_or_assign("tlbi_is", assumed_ns(20, 10, 100, "one broadcast TLBI issue (not measured)"));
        t.insert_or_assign("dsb_ish",
                           assumed_ns(1000, 200, 5000, "DSB ISH waiting for broadcast TLBIs (not measured)"));
    }
    return t;
}

}  // namespace ipisim::probe
