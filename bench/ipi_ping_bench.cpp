// Engine throughput: the IPI-ping model at N = 2, 64, 256, 1024 simulated CPUs.
// Reports simulated events per host (CPU) second ("events/s") and host CPU seconds per simulated
// second ("host_s/sim_s"); cases are named ipi_ping/N.
#include <benchmark/benchmark.h>

#include "sim/time.h"
#include "workload/ipi_ping.h"

using namespace ipisim;
using namespace ipisim::sim::literals;

static void ipi_ping(benchmark::State& state) {
    workload::IpiPingParams p;
    p.cpus = static_cast<uint32_t>(state.range(0));
    p.delay_min = 1_ns;
    p.delay_max = 1000_ns;
    p.wake_latency = 100_ns;
    // About 6 million events per iteration whatever N is.
    p.duration = sim::Picos(2'000'000'000'000ULL / p.cpus);
    if (p.duration > 1_ms * 1000) p.duration = 1_ms * 1000;
    uint64_t events = 0;
    double simulated = 0;
    for (auto _ : state) {
        workload::IpiPingResult r = workload::run_ipi_ping(p, 1);
        events += r.events;
        simulated += r.simulated.seconds();
        benchmark::DoNotOptimize(r.fingerprint);
    }
    state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
    state.counters["host_s/sim_s"] =
        benchmark::Counter(simulated, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(ipi_ping)->Name("ipi_ping")->Arg(2)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);
