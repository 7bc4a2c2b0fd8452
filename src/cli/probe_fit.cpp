#include "cli/probe_fit.h"

#include "cli/validate_model.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>

#include "config/error.h"
#include "experiment/calibrate.h"
#include "probe/host_file.h"
#include "report/atomic_file.h"

namespace ipisim::cli {

namespace {

// "# <note>\n" when the model does not know the host's kernel (model_kernel_note), else "".
std::string kernel_note_comment(const std::string& release) {
    const std::string note = model_kernel_note(release);
    return note.empty() ? std::string() : fmt::format("# Note: {}.\n", note);
}

// One cost the probe determines: the machine key, the model experiment that reproduces the
// microbenchmark on host.toml, and the measured value as a calibrate target.
struct HostFitTarget {
    std::string section;     // "intc.fabric"
    std::string key;         // "same_l3"
    std::string file;        // the experiment's file name in DIR/calibrate
    std::string targets;     // the calibrate targets file's name there
    std::string experiment;  // its text
    std::string name;        // the target's label
    std::string metric;
    double measured = 0;
    std::string spread;  // "interval = [lo, hi]" or "sigma = s"
    std::string what;    // for the summary: what was measured
    [[nodiscard]] std::string dotted() const { return section + "." + key; }
};

// The spread of a figure: the 5-95% interval when it has width and holds the median, else 1% of it.
std::string spread_of(double median, double p5, double p95) {
    return p5 < median && median < p95 ? fmt::format("interval = [{:.17g}, {:.17g}]", p5, p95)
                                       : fmt::format("sigma = {:.17g}", 0.01 * median);
}

// An A cost of the machine, else why not.
const config::CostValue* assumed(const hw::MachineSpec& spec, const std::string& key, std::string& why) {
    const config::CostValue* cost = spec.cost(key);
    if (cost == nullptr || cost->provenance.mark != config::Mark::A) {
        why = fmt::format("{} is not an assumed (A) cost of host.toml", key);
        return nullptr;
    }
    return cost;
}

// The membarrier round trip to a spinning target: the delivery latency of its distance class.
std::optional<HostFitTarget> membarrier_target(const probe::ProbeResults& r, const hw::MachineSpec& spec,
                                               std::string& why) {
    if (!r.membarrier_spinning || !r.target_cpu || r.membarrier_spinning->call_ns.n == 0) {
        why = "the membarrier round trip was not measured";
        return std::nullopt;
    }
    const probe::MembarrierFigure& m = *r.membarrier_spinning;
    if (m.cal_per_call && *m.cal_per_call < 0.5) {
        why = fmt::format("the membarrier calls sent {:.2f} function-call IPIs each", *m.cal_per_call);
        return std::nullopt;
    }
    const auto caller = static_cast<hw::CpuId>(r.caller_cpu);
    const auto target = static_cast<hw::CpuId>(*r.target_cpu);
    if (caller >= spec.topology.nr_cpus() || target >= spec.topology.nr_cpus() || caller == target) {
        why = "the probe's CPUs are not two CPUs of host.toml";
        return std::nullopt;
    }
    const std::string cls(hw::to_string(spec.topology.distance(caller, target)));
    HostFitTarget t;
    t.section = "intc.fabric";
    t.key = cls;
    if (assumed(spec, t.dotted(), why) == nullptr) return std::nullopt;
    t.file = "membarrier.toml";
    t.targets = "membarrier_targets.toml";
    t.experiment = fmt::format(
        "# Written by ipisim probe: its membarrier IPI round trip (a spinning target) in the model.\n{}"
        "[experiment]\nname = \"probe_membarrier\"\n"
        "description = \"membarrier(PRIVATE_EXPEDITED) round trip to a busy target, as ipisim probe "
        "measures it\"\nworkload = \"ipi_roundtrip\"\nmachine = \"host\"\nseed = 1\n\n"
        "[kernel]\nversion = \"{}\"\n\n[params]\nrounds = 20\nsender = {}\nmode = \"membarrier\"\n"
        "distance = \"{}\"\ntarget_state = \"busy\"\n",
        kernel_note_comment(r.info.release), model_kernel_version(r.info.release), caller, cls);
    t.name = "membarrier round trip, target spinning";
    t.metric = "rtt_ns";
    t.measured = m.call_ns.median;
    t.spread = spread_of(m.call_ns.median, m.call_ns.p5, m.call_ns.p95);
    t.what = fmt::format("the membarrier round trip {:.0f} ns", m.call_ns.median);
    return t;
}

// The time the spinning target loses per IPI: the receive cost. In the model it is the interrupt
// context time per IPI (entry, handler, exit, EOI, the refill); the entry is the A value that
// stands for what the others do not itemize (in a VM, the injection).
std::optional<HostFitTarget> lost_time_target(const probe::ProbeResults& r, const hw::MachineSpec& spec,
                                              std::string& why) {
    std::optional<HostFitTarget> t = membarrier_target(r, spec, why);
    if (!t) {
        why = "the target's lost time per IPI, as " + why;
        return std::nullopt;
    }
    const probe::Spread& lost = r.membarrier_spinning->target_lost_ns;
    if (lost.n == 0 || lost.median <= 0) {
        why = "the target's lost time per IPI was not measured";
        return std::nullopt;
    }
    t->section = "cpu";
    t->key = "irq_entry";
    if (assumed(spec, t->dotted(), why) == nullptr) return std::nullopt;
    t->targets = "membarrier_lost_targets.toml";  // the round trip's experiment, another metric of it
    t->name = "time the spinning target lost per IPI";
    t->metric = "target_irq_ns";
    t->measured = lost.median;
    t->spread = spread_of(lost.median, lost.p5, lost.p95);
    t->what = fmt::format("the target's lost time per IPI {:.0f} ns", lost.median);
    return t;
}

// The one-thread write fault + MADV_DONTNEED + read-back loop (tlb_flush2's loop body on one
// page; no other thread, so local flushes only): the fault path's unitemized cost, paid by the
// write fault and by the read-back's zero-page fault. The model runs it as 1 thread of
// tlb_flush2, which also maps and unmaps its 1 MiB region every 256 pages (under 1% of a loop).
std::optional<HostFitTarget> fault_target(const probe::ProbeResults& r, const hw::MachineSpec& spec, std::string& why) {
    if (spec.arch != hw::Arch::x86) {
        why = "the fault path is fitted on x86 only";
        return std::nullopt;
    }
    const probe::DontneedFigure* alone = nullptr;
    for (const probe::DontneedFigure& d : r.dontneed) {
        if (!d.sibling_cpu && d.cycle_ns.n > 0 && d.cycle_ns.median > 0) alone = &d;
    }
    if (alone == nullptr) {
        why = "the one-thread MADV_DONTNEED + refault loop was not measured";
        return std::nullopt;
    }
    HostFitTarget t;
    t.section = "cpu";
    t.key = "handle_mm_fault";
    if (assumed(spec, t.dotted(), why) == nullptr) return std::nullopt;
    t.file = "fault.toml";
    t.targets = "fault_targets.toml";
    t.experiment = fmt::format(
        "# Written by ipisim probe: its one-thread write fault + MADV_DONTNEED + read-back loop in the model.\n{}"
        "[experiment]\nname = \"probe_fault\"\n"
        "description = \"one thread: write a page, madvise(MADV_DONTNEED) it, read it back, as ipisim probe "
        "measures it\"\n"
        "workload = \"tlb_flush2\"\nmachine = \"host\"\nseed = 1\n\n"
        "[kernel]\nversion = \"{}\"\ntlb_flush = \"ipi\"\n\n[params]\nthreads = 1\nmode = \"threads\"\n"
        "warmup = \"1 ms\"\nmeasure = \"4 ms\"\n",
        kernel_note_comment(r.info.release), model_kernel_version(r.info.release));
    // Loops per second of the measured cycle time; its interval inverts.
    const probe::Spread& c = alone->cycle_ns;
    t.name = "write fault + MADV_DONTNEED + read-back, one thread";
    t.metric = "loops_per_sec";
    t.measured = 1e9 / c.median;
    t.spread = c.p5 > 0 ? spread_of(t.measured, 1e9 / c.p95, 1e9 / c.p5) : spread_of(t.measured, 0, 0);
    t.what = fmt::format("the one-thread fault + MADV_DONTNEED loop {:.0f} ns", c.median);
    return t;
}

}  // namespace

std::string fit_host_machine(const probe::ProbeResults& r, const std::filesystem::path& host,
                             const std::string& experiments_dir) {
    std::string out = "host fit (ipisim calibrate, probe microbenchmarks only):\n";
    const hw::MachineSpec spec = hw::load_machine(host.string());
    std::vector<HostFitTarget> targets;
    // The receive cost first: the round trip includes it, so the delivery is fitted after it.
    for (auto* make : {&lost_time_target, &membarrier_target, &fault_target}) {
        std::string why;
        if (auto t = make(r, spec, why)) {
            targets.push_back(std::move(*t));
        } else {
            out += fmt::format("  not fitted: {}\n", why);
        }
    }
    if (targets.empty()) return out + "  nothing fitted\n";

    // One calibrate run per cost, in turn, each on host.toml as the fits before it left it: each
    // microbenchmark moves only its own cost (the fault loop sends no IPI, the round trip takes
    // no fault), and a one-parameter fit is robust where a joint one is not: a loops/s target is
    // a step function of its cost (whole loops per window), which stalled the joint optimizer.
    const std::filesystem::path dir = host.parent_path() / "calibrate";
    std::filesystem::create_directories(dir);
    std::vector<probe::FittedCost> fitted;
    const auto ns = [](double ps) { return fmt::format("{:.0f} ns", ps / 1000); };
    const auto shown = [](const std::optional<double>& v, const std::string& metric) {
        return v ? fmt::format("{:.0f} {}", *v, metric == "loops_per_sec" ? "loops/s" : "ns") : "-";
    };
    for (const HostFitTarget& t : targets) {
        report::write_file_atomically(dir / t.file, t.experiment);
        report::write_file_atomically(
            dir / t.targets,
            fmt::format("# Written by ipisim probe: one of the probe's own microbenchmarks as a calibrate target.\n"
                        "params = [\"{}\"]\n\n[[target]]\nname = \"{}\"\nexperiment = \"{}\"\nmetric = \"{}\"\n"
                        "measured = {:.17g}\n{}\n",
                        t.dotted(), t.name, t.file, t.metric, t.measured, t.spread));
        const hw::MachineSpec now = hw::load_machine(host.string());
        const config::CostValue* cost = now.cost(t.dotted());
        const experiment::CalibrationSetup setup = experiment::prepare_calibration(
            host.string(), experiment::load_targets((dir / t.targets).string()), {}, experiments_dir);
        experiment::CalibrateOptions options;
        options.jobs = 1;
        options.max_evaluations = 40;
        const experiment::CalibrationResult result = experiment::calibrate(setup, options);
        // Written by the probe's own writer (its header and layout), the value to 0.1 ns.
        probe::FittedCost f;
        f.section = t.section;
        f.key = t.key;
        f.ns = std::round(result.after.values[0] / 100.0) / 10.0;
        f.source = fmt::format("fitted by ipisim calibrate (was A {}: {})",
                               experiment::cost_text(cost->type, cost->value), cost->provenance.source);
        f.target = fmt::format("calibrate: {}: {}", t.targets, t.name);
        std::string interval = "no interval";
        if (!result.spread.params.empty() && !result.spread.params[0].determined) {
            interval = "no interval: " + result.spread.params[0].why_not;
        } else if (!result.spread.params.empty()) {
            const config::Range& i = *result.spread.params[0].interval;
            f.fit_ns = std::pair{i.lo / 1000, i.hi / 1000};
            interval = fmt::format("95% interval {} .. {}", ns(i.lo), ns(i.hi));
        }
        out += fmt::format(
            "  fitted {} (F): {} -> {} ({}; range {} .. {}) to {} (model {} before, {} after; {} evaluations, {})\n",
            t.dotted(), ns(cost->value), ns(f.ns * 1000), interval, ns(cost->provenance.range->lo),
            ns(cost->provenance.range->hi), t.what, shown(result.before.predicted[0], t.metric),
            shown(result.after.predicted[0], t.metric), result.evaluations, result.stop);
        const double fitted_ps = f.ns * 1000;
        if (fitted_ps <= cost->provenance.range->lo || fitted_ps >= cost->provenance.range->hi) {
            out += fmt::format(
                "    at its range's {} end: the measurement wants a value beyond the assumed range, "
                "so the model still misses it by the residual above\n",
                fitted_ps <= cost->provenance.range->lo ? "low" : "high");
        }
        fitted.push_back(std::move(f));
        const std::string text = probe::host_machine_text(r, fitted);
        probe::load_host_machine(text, host.string());  // reads back under the probe's rules
        report::write_file_atomically(host, text);
    }
    return out + fmt::format(
                     "  still assumed (A): the IRQ entry / exit / EOI split, the send costs and every other A "
                     "value (these microbenchmarks cannot separate them); targets in {}\n",
                     dir.string());
}

}  // namespace ipisim::cli
