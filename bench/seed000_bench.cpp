// Seed 000 (experiments/seed000_rar.toml): the whole table (every thread count, every protocol
// column), and its costliest point alone, IPI flush at 60 threads (the "x slower than real
// time" figure of the performance goals).
#include "experiment_bench.h"

using ipisim::bench::run_experiment_bench;

static void seed000_table(benchmark::State& state) {
    run_experiment_bench(state, "experiments/seed000_rar.toml", {});
}
BENCHMARK(seed000_table)->Unit(benchmark::kSecond)->Iterations(1);

static void seed000_ipi_60(benchmark::State& state) {
    run_experiment_bench(state, "experiments/seed000_rar.toml",
                         {"sweep.threads=[60]", "sweep.kernel.tlb_flush=[\"ipi\"]"});
}
BENCHMARK(seed000_ipi_60)->Name("seed000/ipi/60")->Unit(benchmark::kSecond)->Iterations(1);
