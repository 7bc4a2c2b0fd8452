// The timed event queue alone (sim::EventQueue, and a plain 4-ary heap, sim::EventHeap, beside
// it for comparison), in the classic hold model: Q events pending; each operation pops
// the earliest and pushes one later event, so the queue size stays Q. Reported as ns per hold
// (pop + push) and holds/s. Delays:
//   uniform: U[1 ns, 1 us], as between IPI deliveries and memory transactions;
//   mixed:   half the events are ns-scale deliveries (U[1 ns, 1 us]) and half 10 ms sleeps
//            (10 ms + U[0, 1 ms]), as ticks, msleeps and deliveries side by side.
#include <benchmark/benchmark.h>

#include <vector>

#include "sim/event.h"
#include "sim/event_queue.h"
#include "sim/quad_heap.h"
#include "sim/rng.h"

using namespace ipisim;

namespace {

constexpr uint64_t kNs = 1000;
constexpr uint64_t kMs = 1000 * 1000 * kNs;

template <bool Mixed>
uint64_t next_delay(sim::Rng& rng, uint32_t cls) {
    if (Mixed && cls == 1) return 10 * kMs + rng.uniform(0, kMs);
    return rng.uniform(kNs, 1000 * kNs);
}

template <class Queue, bool Mixed>
void hold(benchmark::State& state) {
    const auto q_size = static_cast<uint32_t>(state.range(0));
    Queue q;
    sim::Rng rng(7);
    uint64_t seq = 0;
    for (uint32_t i = 0; i < q_size; ++i) {
        const uint32_t cls = i & 1U;
        q.push(sim::Event{next_delay<Mixed>(rng, cls), sim::make_key(sim::Priority::Normal, seq++), nullptr, nullptr,
                          cls, i});
    }
    for (auto _ : state) {
        const sim::Event e = q.pop();
        q.push(sim::Event{e.time + next_delay<Mixed>(rng, e.arg), sim::make_key(sim::Priority::Normal, seq++), nullptr,
                          nullptr, e.arg, e.tag});
    }
    benchmark::DoNotOptimize(q.size());
    state.counters["holds/s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(hold<sim::EventQueue, false>)->Name("event_queue/uniform")->Arg(2)->Arg(64)->Arg(1024)->Arg(100000);
BENCHMARK(hold<sim::EventQueue, true>)->Name("event_queue/mixed")->Arg(2)->Arg(64)->Arg(1024)->Arg(100000);
BENCHMARK(hold<sim::EventHeap, false>)->Name("event_heap4/uniform")->Arg(2)->Arg(64)->Arg(1024)->Arg(100000);
BENCHMARK(hold<sim::EventHeap, true>)->Name("event_heap4/mixed")->Arg(2)->Arg(64)->Arg(1024)->Arg(100000);
