// `ipisim reproduce --uncertainty N` without the nominal rows: every seed experiment's points on
// N sampled machines, on all cores, as one benchmark iteration, timed in wall-clock seconds (the
// uncertainty goal: N = 32 under 10 minutes on a 2-core machine). Counters: the sample runs and
// their events per wall second.
#include <benchmark/benchmark.h>

#include <vector>

#include "cli/reproduce_command.h"
#include "experiment/experiment.h"
#include "experiment/parallel.h"
#include "experiment/runner.h"
#include "experiment/uncertainty.h"
#include "experiment_bench.h"

namespace {

using ipisim::bench::source_path;
namespace ex = ipisim::experiment;

// The seed experiments, as `ipisim reproduce` finds them (experiments/seed*.toml), prepared.
std::vector<ex::PreparedExperiment> prepared_seed_experiments() {
    std::vector<ex::PreparedExperiment> out;
    for (const auto& f : ipisim::cli::seed_experiments(source_path("experiments"))) {
        out.push_back(ex::prepare_experiment(ex::load_experiment(f.string(), {}), source_path("machines")));
    }
    return out;
}

void reproduce_uncertainty(benchmark::State& state) {
    const auto samples = static_cast<size_t>(state.range(0));
    size_t runs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        std::vector<ex::PreparedExperiment> prepared = prepared_seed_experiments();
        std::vector<ex::PreparedExperiment*> all;
        for (ex::PreparedExperiment& p : prepared) {
            all.push_back(&p);
            runs += samples * p.points.size();
        }
        state.ResumeTiming();
        ex::run_uncertainty(all, samples, ex::default_jobs());
        benchmark::DoNotOptimize(prepared.size());
    }
    state.counters["sample_runs"] = static_cast<double>(runs) / static_cast<double>(state.iterations());
    state.counters["jobs"] = ex::default_jobs();
}

}  // namespace

BENCHMARK(reproduce_uncertainty)
    ->Name("reproduce/uncertainty")
    ->Arg(16)
    ->Arg(32)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();
