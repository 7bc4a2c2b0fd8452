// will-it-scale tlb_flush2 at 60, 256 and 1024 simulated CPUs (the seed 000 workload).
//   tlb_flush2/threads/60: seed 000's Sapphire Rapids 30c/60t, 60 threads sharing one mm, IPI
//     flush, the experiment's own 2 ms warm-up + 10 ms window.
//   tlb_flush2/processes/N: every CPU of host256 / bench/machines/host1024 runs a process with
//     its own mm (local flushes; one busy task per CPU).
//   tlb_flush2/threads64/N: 64 threads sharing one mm (shootdowns) on the N-CPU machine.
// All CPUs as threads of one mm does not reach a steady state at 256+ CPUs yet (the rwsem
// model's start-up convoy), so it is not benchmarked here.
#include <string>

#include "experiment_bench.h"

using ipisim::bench::run_experiment_bench;

namespace {
const char* const kExperiment = "experiments/seed000_rar.toml";

std::string machines_for(int cpus) {
    return cpus > 256 ? "bench/machines" : "machines";
}
std::string machine_for(int cpus) {
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
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
