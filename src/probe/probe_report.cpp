#include "probe/probe_report.h"

#include <fmt/format.h>

namespace ipisim::probe {

namespace {

std::string per_op(const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}", *v) : "n/a";
}

nlohmann::ordered_json spread_json(const Spread& s) {
    nlohmann::ordered_json j;
    j["n"] = s.n;
    j["median"] = s.median;
    j["min"] = s.min;
    j["p5"] = s.p5;
    j["p25"] = s.p25;
    j["p75"] = s.p75;
    j["p95"] = s.p95;
    j["max"] = s.max;
    return j;
}

template <class T>
nlohmann::ordered_json optional_json(const std::optional<T>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

std::string host_lines(const ProbeResults& r) {
    const HostInfo& i = r.info;
    std::string out;
    out += fmt::format("host: {} {} {} ({})\n", i.sysname, i.release, i.machine, i.model_name);
    if (i.virtualized()) {
        out += fmt::format(
            "  VIRTUALIZED: CPUID hypervisor bit set{} -- IPIs and MSR accesses exit to the host, so "
            "they cost microseconds, not bare-metal nanoseconds\n",
            i.hypervisor_vendor.empty() ? "" : fmt::format(", vendor \"{}\"", i.hypervisor_vendor));
    } else {
        out += fmt::format("  bare metal (CPUID hypervisor bit {})\n", i.cpuid_read ? "clear" : "not read");
    }
    std::string why;
    out += fmt::format("  interrupt controller: {} ({}); x2apic flag {}\n", intc_kind(i, &why), why,
                       i.has_flag("x2apic") ? "set" : "clear");
    for (const std::string& m : i.mitigations) out += fmt::format("  mitigation: {}\n", m);
    if (i.pv_send_ipi) out += "  paravirtual IPIs: send_IPI_mask() replaced with kvm_send_ipi_mask() (a hypercall)\n";
    if (i.pv_tlb_flush) out += "  paravirtual TLB flush: shootdowns skip preempted vCPUs (KVM pv remote TLB flush)\n";
    out += fmt::format("  load average at start: {}; measuring threads {}\n",
                       r.load_average.empty() ? "?" : r.load_average,
                       r.realtime ? "SCHED_FIFO (other tasks keep 5% of each CPU)" : "at normal priority");
    out += fmt::format("  CPUs: {} ({} task order: ", r.topology.cpus.size(),
                       r.topology.skeleton.empty() ? "flat," : "hwloc,");
    for (size_t k = 0; k < r.topology.task_order.size(); ++k)
        out += fmt::format("{}{}", k ? " " : "", r.topology.task_order[k]);
    out += fmt::format("); measuring on CPU {}{}\n", r.caller_cpu,
                       r.target_cpu ? fmt::format(", other side CPU {}", *r.target_cpu) : "");
    if (!r.cpuidle.states.empty()) {
        out += fmt::format("  cpuidle ({}):", r.cpuidle.driver);
        for (const CpuidleState& s : r.cpuidle.states) {
            out += fmt::format(" {} {:.0f}/{:.0f} us{}", s.name, s.exit_latency_us, s.target_residency_us,
                               s.disabled ? " (disabled)" : "");
        }
        out += "  (declared exit latency / target residency)\n";
    } else {
        out += fmt::format("  cpuidle: none ({})\n", r.cpuidle.absent_reason);
    }
    return out;
}

}  // namespace

std::string render_probe_summary(const ProbeResults& r) {
    std::string out = host_lines(r);
    out += fmt::format("\nmeasurements ({}; median of N with spread):\n", r.quick ? "--quick" : "full");
    const auto line = [&](const std::string& what, const Spread& s, const std::string& unit) {
        if (s.n > 0) out += fmt::format("  {:<44} {}\n", what, spread_text(s, unit));
    };
    line("core clock (dependent multiplies)", r.core_clock_mhz, "MHz");
    line("clock read (clock_gettime)", r.clock_read_ns, "ns");
    for (const ClassLatency& c : r.cacheline) {
        line(fmt::format("cache line one-way, {} ({} pairs)", hw::to_string(c.distance), c.pairs.size()), c.one_way_ns,
             "ns");
    }
    line("null syscall (getppid)", r.syscall_ns, "ns");
    if (r.membarrier_spinning) {
        line("membarrier, target spinning (IPI round trip)", r.membarrier_spinning->call_ns, "ns");
        out += fmt::format("  {:<44} {} per call\n", "  CAL interrupts", per_op(r.membarrier_spinning->cal_per_call));
        if (r.membarrier_spinning->target_lost_ns.n > 0) {
            line("  time the target lost per IPI", r.membarrier_spinning->target_lost_ns, "ns");
        }
    }
    if (r.membarrier_sleeping) {
        line("membarrier, target sleeping (no IPI needed)", r.membarrier_sleeping->call_ns, "ns");
        out += fmt::format("  {:<44} {} per call\n", "  CAL interrupts", per_op(r.membarrier_sleeping->cal_per_call));
    }
    if (r.membarrier_spinning && r.membarrier_sleeping) {
        out += fmt::format("  {:<44} {:.1f} ns\n", "  => IPI round trip (spinning - sleeping)",
                           r.membarrier_spinning->call_ns.median - r.membarrier_sleeping->call_ns.median);
    }
    line("pipe ping-pong, one CPU (half round trip)", r.pipe_same_cpu_ns, "ns");
    line("pipe ping-pong, across CPUs (half round trip)", r.pipe_cross_cpu_ns, "ns");
    for (const WakeFigure& w : r.futex_wake) {
        line(fmt::format("futex wake-up after {} us idle", w.idle_ns / 1000), w.wake_ns, "ns");
    }
    line("anonymous write fault (per 4 KiB page)", r.anon_fault_ns, "ns");
    for (const DontneedFigure& d : r.dontneed) {
        const std::string who =
            d.sibling_cpu ? fmt::format("with a thread spinning on CPU {}", *d.sibling_cpu) : "alone";
        line(fmt::format("write fault + MADV_DONTNEED + read-back, {}", who), d.cycle_ns, "ns");
        line("  of which madvise (timed per call)", d.madvise_ns, "ns");
        line("  of which the refault (timed per call)", d.refault_ns, "ns");
        line("  of which the read-back (zero page)", d.read_back_ns, "ns");
        out += fmt::format("  {:<44} TLB {} / CAL {} per cycle\n", "  interrupts", per_op(d.tlb_per_op),
                           per_op(d.cal_per_op));
    }
    if (!r.placement.empty()) {
        out += fmt::format(
            "\nplacement: a line between CPUs {} and {} took {:.1f} ns in the cache-line step; checked "
            "before / after each step on both CPUs:\n",
            r.caller_cpu, r.target_cpu.value_or(0), r.pair_line_ns);
        for (const StepPlacement& s : r.placement) {
            out += fmt::format("  {:<52} {}{}\n", s.what, check_text(s.check),
                               s.check.matched() ? "" : ": another placement");
        }
    }
    if (r.skipped.empty()) {
        out += "\nskipped: nothing\n";
    } else {
        out += "\nskipped:\n";
        for (const Skipped& s : r.skipped) out += fmt::format("  {}: {}\n", s.what, s.why);
    }
    return out;
}

nlohmann::ordered_json probe_json(const ProbeResults& r) {
    nlohmann::ordered_json j;
    j["date"] = r.date;
    j["command"] = r.command;
    j["quick"] = r.quick;
    j["repeats"] = r.repeats;
    nlohmann::ordered_json host;
    host["kernel"] = r.info.release;
    host["machine"] = r.info.machine;
    host["model_name"] = r.info.model_name;
    host["virtualized"] = r.info.virtualized();
    host["hypervisor_vendor"] = r.info.hypervisor_vendor;
    host["apic_routing"] = r.info.apic_routing;
    host["x2apic_flag"] = r.info.has_flag("x2apic");
    host["pv_send_ipi"] = r.info.pv_send_ipi;
    host["pv_tlb_flush"] = r.info.pv_tlb_flush;
    host["mitigations"] = r.info.mitigations;
    host["cpus"] = r.topology.cpus.size();
    host["load_average"] = r.load_average;
    host["realtime"] = r.realtime;
    host["caller_cpu"] = r.caller_cpu;
    host["target_cpu"] = optional_json(r.target_cpu);
    host["cpuidle_driver"] = r.cpuidle.driver;
    host["cpuidle_states"] = r.cpuidle.states.size();
    j["host"] = host;
    nlohmann::ordered_json m;
    m["core_clock_mhz"] = spread_json(r.core_clock_mhz);
    m["clock_read_ns"] = spread_json(r.clock_read_ns);
    for (const ClassLatency& c : r.cacheline) {
        nlohmann::ordered_json cj = spread_json(c.one_way_ns);
        cj["pairs"] = c.pairs.size();
        cj["pair_medians_ns"] = c.pair_medians_ns;
        m["cacheline_one_way_ns"][std::string(hw::to_string(c.distance))] = cj;
    }
    m["syscall_ns"] = spread_json(r.syscall_ns);
    for (const auto& [name, fig] : {std::pair{"membarrier_spinning", &r.membarrier_spinning},
                                    std::pair{"membarrier_sleeping", &r.membarrier_sleeping}}) {
        if (!*fig) continue;
        nlohmann::ordered_json mj = spread_json((*fig)->call_ns);
        mj["cal_per_call"] = optional_json((*fig)->cal_per_call);
        if ((*fig)->target_lost_ns.n > 0) mj["target_lost_ns"] = spread_json((*fig)->target_lost_ns);
        m[std::string(name) + "_ns"] = mj;
    }
    m["pipe_same_cpu_ns"] = spread_json(r.pipe_same_cpu_ns);
    m["pipe_cross_cpu_ns"] = spread_json(r.pipe_cross_cpu_ns);
    for (const WakeFigure& w : r.futex_wake) {
        nlohmann::ordered_json wj = spread_json(w.wake_ns);
        wj["idle_ns"] = w.idle_ns;
        m["futex_wake_ns"].push_back(wj);
    }
    m["anon_write_fault_ns"] = spread_json(r.anon_fault_ns);
    for (const DontneedFigure& d : r.dontneed) {
        nlohmann::ordered_json dj;
        dj["sibling_cpu"] = optional_json(d.sibling_cpu);
        dj["cycle_ns"] = spread_json(d.cycle_ns);
        dj["madvise_ns"] = spread_json(d.madvise_ns);
        dj["refault_ns"] = spread_json(d.refault_ns);
        dj["read_back_ns"] = spread_json(d.read_back_ns);
        dj["tlb_per_op"] = optional_json(d.tlb_per_op);
        dj["cal_per_op"] = optional_json(d.cal_per_op);
        m["dontneed_refault"].push_back(dj);
    }
    j["measurements"] = m;
    j["placement"] = nlohmann::ordered_json::array();
    for (const StepPlacement& s : r.placement) {
        j["placement"].push_back({{"step", s.what},
                                  {"pair_line_ns", r.pair_line_ns},
                                  {"before_ns", s.check.before_ns},
                                  {"after_ns", s.check.after_ns},
                                  {"attempts", s.check.attempts},
                                  {"same_placement", s.check.matched()}});
    }
    for (const Skipped& s : r.skipped) j["skipped"].push_back({{"what", s.what}, {"why", s.why}});
    if (r.skipped.empty()) j["skipped"] = nlohmann::ordered_json::array();
    return j;
}

}  // namespace ipisim::probe
