// will-it-scale tlb_flush2 at 60, 256 and 1024 simulated CPUs (the seed 000 workload).
//   tlb_flush2/threads/60: seed 000's Sapphire Rapids 30c/60t, 60 threads sharing one mm, IPI
//     flush, the experiment's own 2 ms warm-up + 10 ms window.
//   tlb_flush2/processes/N: every CPU of host256 / bench/machines/host1024 / host4096 runs a
//     process with its own mm (local flushes; one busy task per CPU; 2.3 GB at 4096).
//   tlb_flush2/threads64/N: 64 threads sharing one mm (shootdowns) on the N-CPU machine.
// All CPUs as threads of one mm is not benchmarked: every loop is a shootdown to every other
// CPU, so a simulated millisecond costs about N^2 handler runs (host1024: ~30 s of host time
// per simulated ms; it completes loops from its second millisecond, docs/mechanisms.md §5.2).
#include <string>

#include "experiment_bench.h"

using ipisim::bench::run_experiment_bench;

namespace {
const char* const kExperiment = "experiments/seed000_rar.toml";

std::string machines_for(int cpus) {
    return cpus > 256 ? "bench/machines" : "machines";
}
std::string machine_for(int cpus) {
    if (cpus > 1024) return "host4096";
    return cpus > 256 ? "host1024" : "host256";
}
}  // namespace

static void tlb_flush2_threads_60(benchmark::State& state) {
    run_experiment_bench(state, kExperiment, {"sweep.threads=[60]", "sweep.kernel.tlb_flush=[\"ipi\"]"});
}
BENCHMARK(tlb_flush2_threads_60)->Name("tlb_flush2/threads/60")->Unit(benchmark::kSecond)->Iterations(1);

static void tlb_flush2_processes(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    run_experiment_bench(state, kExperiment,
                         {"experiment.machine=" + machine_for(n), "sweep.threads=[" + std::to_string(n) + "]",
                          "sweep.kernel.tlb_flush=[\"ipi\"]", "params.mode=\"processes\"", "params.warmup=\"500 us\"",
                          "params.measure=\"1 ms\""},
                         machines_for(n));
}
BENCHMARK(tlb_flush2_processes)
    ->Name("tlb_flush2/processes")
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

static void tlb_flush2_threads64(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    run_experiment_bench(state, kExperiment,
                         {"experiment.machine=" + machine_for(n), "sweep.threads=[64]",
                          "sweep.kernel.tlb_flush=[\"ipi\"]", "params.warmup=\"1 ms\"", "params.measure=\"2 ms\""},
                         machines_for(n));
}
BENCHMARK(tlb_flush2_threads64)
    ->Name("tlb_flush2/threads64")
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
