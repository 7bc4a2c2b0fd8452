// Seed 004's /proc/cpuinfo opens (experiments/seed004_cpuinfo.toml) on 256 and 1024 CPUs:
// gap 50 ms (frequent reader), both variants. 1 ms ticks on every CPU beside nanosecond IPI
// deliveries and 50 ms sleeps: the mixed time scales that once degraded the event queue.
// The goal is a cost per simulated CPU at 1024 within a small factor of that at 256.
#include <string>

#include "experiment_bench.h"

using ipisim::bench::run_experiment_bench;

static void cpuinfo(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    const bool big = n > 256;
    run_experiment_bench(state, "experiments/seed004_cpuinfo.toml",
                         {std::string("experiment.machine=") + (big ? "host1024" : "host256"), "sweep.gap=[\"50 ms\"]",
                          "sweep.kernel.arch_freq_prepare_all=[\"serial_single\", \"many\"]"},
                         big ? "bench/machines" : "machines");
    state.counters["cpus"] = n;
}
BENCHMARK(cpuinfo)->Name("cpuinfo")->Arg(256)->Arg(1024)->Unit(benchmark::kSecond)->Iterations(1);
