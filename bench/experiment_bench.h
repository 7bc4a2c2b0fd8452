// Runs a shipped experiment file, with `--set` style overrides, as one benchmark iteration, and
// reports the engine's throughput: events/s (events per host CPU second) and host_s/sim_s (host
// CPU seconds per simulated second, i.e. how much slower than real time the model runs).
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "experiment/runner.h"

namespace ipisim::bench {

inline std::string source_path(const std::string& relative) {
    return std::string(IPISIM_SOURCE_DIR) + "/" + relative;
}

// `experiment` and `machines` are relative to the source tree.
inline void run_experiment_bench(benchmark::State& state, const std::string& experiment,
                                 const std::vector<std::string>& overrides, const std::string& machines = "machines") {
    const experiment::Experiment e = experiment::load_experiment(source_path(experiment), overrides);
    experiment::RunOptions opt;
    opt.machines_dir = source_path(machines);
    uint64_t events = 0;
    double simulated = 0;
    double loops = 0;  // tlb_flush2's loops in the window: shows the big machines get going
    bool has_loops = false;
    for (auto _ : state) {
        const report::ExperimentResults r = experiment::run_experiment(e, opt);
        for (const auto& row : r.rows) {
            events += row.events;
            simulated += row.simulated_seconds;
            const auto l = row.metrics.find("loops");
            if (l != row.metrics.end() && l->is_number()) {
                loops += l->get<double>();
                has_loops = true;
            }
        }
        benchmark::DoNotOptimize(r.rows.size());
    }
    state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
    state.counters["host_s/sim_s"] =
        benchmark::Counter(simulated, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["points"] = static_cast<double>(e.points());
    if (has_loops) state.counters["loops"] = loops;
}

}  // namespace ipisim::bench
