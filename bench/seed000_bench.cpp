// The whole seed 000 table (experiments/seed000_rar.toml, every protocol column it has):
// host seconds per run and simulated events per host (CPU) second.
#include <benchmark/benchmark.h>

#include <string>

#include "experiment/experiment.h"
#include "experiment/runner.h"

using namespace ipisim;

static void seed000_table(benchmark::State& state) {
    const std::string src = IPISIM_SOURCE_DIR;
    const experiment::Experiment e = experiment::load_experiment(src + "/experiments/seed000_rar.toml", {});
    experiment::RunOptions opt;
    opt.machines_dir = src + "/machines";
    uint64_t events = 0;
    for (auto _ : state) {
        const report::ExperimentResults r = experiment::run_experiment(e, opt);
        for (const auto& row : r.rows) events += row.events;
        benchmark::DoNotOptimize(r.rows.size());
    }
    state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
    state.counters["points"] = static_cast<double>(e.points());
}
BENCHMARK(seed000_table)->Unit(benchmark::kSecond)->Iterations(1);
