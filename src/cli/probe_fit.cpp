#include "cli/probe_fit.h"

#include "cli/validate_model.h"

#include <fmt/format.h>

#include <cmath>

#include "config/error.h"
#include "experiment/calibrate.h"
#include "probe/host_file.h"
#include "report/atomic_file.h"

namespace ipisim::cli {

std::string fit_host_machine(const probe::ProbeResults& r, const std::filesystem::path& host,
                             const std::string& experiments_dir) {
    const std::string head = "host fit (ipisim calibrate, probe microbenchmarks only):\n";
    if (!r.membarrier_spinning || !r.target_cpu || r.membarrier_spinning->call_ns.n == 0) {
        return head + "  nothing fitted: the membarrier round trip was not measured\n";
    }
    const probe::MembarrierFigure& m = *r.membarrier_spinning;
    if (m.cal_per_call && *m.cal_per_call < 0.5) {
        return head + fmt::format("  nothing fitted: the membarrier calls sent {:.2f} function-call IPIs each\n",
                                  *m.cal_per_call);
    }
    const hw::MachineSpec spec = hw::load_machine(host.string());
    const auto caller = static_cast<hw::CpuId>(r.caller_cpu);
    const auto target = static_cast<hw::CpuId>(*r.target_cpu);
    if (caller >= spec.topology.nr_cpus() || target >= spec.topology.nr_cpus() || caller == target) {
        return head + "  nothing fitted: the probe's CPUs are not two CPUs of host.toml\n";
    }
    const std::string cls(hw::to_string(spec.topology.distance(caller, target)));
    const std::string key = "intc.fabric." + cls;
    const config::CostValue* cost = spec.cost(key);
    if (cost == nullptr || cost->provenance.mark != config::Mark::A) {
        return head + fmt::format("  nothing fitted: {} is not an assumed (A) cost of host.toml\n", key);
    }

    const std::filesystem::path dir = host.parent_path() / "calibrate";
    std::filesystem::create_directories(dir);
    report::write_file_atomically(
        dir / "membarrier.toml",
        fmt::format("# Written by ipisim probe: its membarrier IPI round trip (a spinning target) in the model.\n"
                    "[experiment]\nname = \"probe_membarrier\"\n"
                    "description = \"membarrier(PRIVATE_EXPEDITED) round trip to a busy target, as ipisim probe "
                    "measures it\"\nworkload = \"ipi_roundtrip\"\nmachine = \"host\"\nseed = 1\n\n"
                    "[kernel]\nversion = \"{}\"\n\n[params]\nrounds = 20\nsender = {}\nmode = \"membarrier\"\n"
                    "distance = \"{}\"\ntarget_state = \"busy\"\n",
                    model_kernel_version(r.info.release), caller, cls));
    // The spread: the 5-95% interval when it has width and holds the median, else 1% of it.
    const probe::Spread& s = m.call_ns;
    const std::string spread = s.p5 < s.median && s.median < s.p95
                                   ? fmt::format("interval = [{:.17g}, {:.17g}]", s.p5, s.p95)
                                   : fmt::format("sigma = {:.17g}", 0.01 * s.median);
    report::write_file_atomically(
        dir / "targets.toml",
        fmt::format("# Written by ipisim probe: the probe's own microbenchmarks as calibrate targets.\n"
                    "params = [\"{}\"]\n\n[[target]]\nname = \"membarrier round trip, target spinning\"\n"
                    "experiment = \"membarrier.toml\"\nmetric = \"rtt_ns\"\nmeasured = {:.17g}\n{}\n",
                    key, s.median, spread));
    const experiment::CalibrationSetup setup = experiment::prepare_calibration(
        host.string(), experiment::load_targets((dir / "targets.toml").string()), {}, experiments_dir);
    experiment::CalibrateOptions options;
    options.jobs = 1;
    options.max_evaluations = 40;
    const experiment::CalibrationResult result = experiment::calibrate(setup, options);
    // Written by the probe's own writer (its header and layout), the value to 0.1 ns.
    const double fitted_ns = std::round(result.after.values[0] / 100.0) / 10.0;
    probe::FittedCost f;
    f.section = "intc.fabric";
    f.key = cls;
    f.ns = fitted_ns;
    f.source = fmt::format("fitted by ipisim calibrate (was A {}: {})", experiment::cost_text(cost->type, cost->value),
                           cost->provenance.source);
    f.target = "calibrate: targets.toml: membarrier round trip, target spinning";
    const std::string text = probe::host_machine_text(r, {f});
    probe::load_host_machine(text, host.string());  // reads back under the probe's rules
    report::write_file_atomically(host, text);
    const auto shown = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f} ns", *v) : "-"; };
    const auto ns = [](double ps) { return fmt::format("{:.0f} ns", ps / 1000); };
    return head + fmt::format(
                      "  fitted {} (F): {} -> {} (range {} .. {}) to the membarrier round trip {:.0f} ns "
                      "(model {} before, {} after; {} evaluations, {})\n"
                      "  still assumed (A): the IRQ entry / exit / EOI split, the send costs and every other "
                      "A value (one round trip cannot separate them); targets in {}\n",
                      key, ns(cost->value), ns(fitted_ns * 1000), ns(cost->provenance.range->lo),
                      ns(cost->provenance.range->hi), s.median, shown(result.before.predicted[0]),
                      shown(result.after.predicted[0]), result.evaluations, result.stop,
                      (dir / "targets.toml").string());
}

}  // namespace ipisim::cli
