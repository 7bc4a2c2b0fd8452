// Microbenchmark: the round trip of a synchronous cross-call (ipi_benchmark's "round trip" and
// "broadcast" tests, and `ipisim probe`'s membarrier round trip). CPU `sender` calls an empty
// function `rounds` times, waiting for it each time:
//   mode = "single":    smp_call_function_single(target, func, NULL, wait=1), the target being
//                       the lowest-numbered CPU at `distance` from the sender;
//   mode = "broadcast": smp_call_function_many(every other CPU, func, NULL, wait=1);
//   mode = "membarrier": membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) with one other thread of
//                       the process, running on the target (`ipisim probe`'s IPI round trip):
//                       a system call (cpu.syscall) around smp_call_function_many(the target,
//                       ipi_mb, NULL, wait=1).
// The targets are either idle (target_state = "idle", in `idle_state`, default the deepest the
// machine has) or busy (target_state = "busy": a kernel loop computing 1 us chunks with
// interrupts on, which each IPI interrupts). Before each call the sender computes for `gap` (not
// counted), so that an idle target is back in its idle state: back to back, a call queued
// while the target is still leaving idle after the previous one is run by its idle loop's
// flush_smp_call_function_queue without an interrupt. One call before the measured ones warms
// the lines (the CSDs, the call queue) and is not counted. Calibration targets (docs/uncertainty.md): the
// sender-side round trip, and the interrupt time a target spends per IPI.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "kernel/costs.h"
#include "kernel/smp/smp.h"
#include "sim/registry.h"
#include "workload/bounds.h"
#include "workload/peer.h"
#include "workload/workload.h"

namespace ipisim::workload {

namespace {

enum class Mode : uint8_t { single, broadcast, membarrier };
enum class TargetState : uint8_t { idle, busy };

struct Params {
    int64_t rounds = 0;
    int64_t sender = 0;
    Mode mode = Mode::single;
    hw::DistanceClass distance = hw::DistanceClass::same_l3;
    TargetState target_state = TargetState::idle;
    std::optional<std::string> idle_state;
    sim::Picos gap;
};

struct Metrics {
    double rtt_ns = 0;         // mean time of one call, as the sender sees it
    double target_irq_ns = 0;  // interrupt-context time of the targets per IPI they received
    uint64_t ipis = 0;         // IPIs sent in the measured calls
    uint32_t target_cpu = 0;   // single: the target; broadcast: the number of targets
};

class IpiRoundtrip : public SchemaWorkload<IpiRoundtrip, Params, Metrics> {
public:
    static const config::Schema<Params>& params_schema() {
        static const auto s =
            config::Schema<Params>("workload.ipi_roundtrip", "microbenchmark: synchronous cross-call round trip")
                .param("rounds", &Params::rounds, "measured calls (after one warm-up call)")
                .at_least(1)
                .at_most(kMaxCount)
                .param("sender", &Params::sender, "the calling CPU")
                .at_least(0)
                .def(int64_t{0})
                .choice("mode", &Params::mode,
                        {{"single", Mode::single}, {"broadcast", Mode::broadcast}, {"membarrier", Mode::membarrier}},
                        "one target (smp_call_function_single), every other CPU (smp_call_function_many), or one "
                        "target inside a membarrier() system call")
                .def(Mode::single)
                .sets("single", [](const Params& p) { return p.mode != Mode::broadcast; })
                .choice("distance", &Params::distance, distance_choices(),
                        "single, membarrier: the target is the lowest-numbered CPU at this distance from the sender")
                .def(hw::DistanceClass::same_l3)
                .when("single")
                .choice("target_state", &Params::target_state,
                        {{"idle", TargetState::idle}, {"busy", TargetState::busy}},
                        "the targets idle, or compute with interrupts on")
                .def(TargetState::idle)
                .sets("idle", [](const Params& p) { return p.target_state == TargetState::idle; })
                .param("idle_state", &Params::idle_state,
                       "idle: the state the targets idle in (a name of the machine's [[idle]]; default the deepest)")
                .when("idle")
                .param("gap", &Params::gap, "the sender computes this long before each call (not counted)")
                .def(sim::Picos(20'000'000))
                .at_most(kMaxSimulatedPicos);
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const auto s =
            config::Schema<Metrics>("workload.ipi_roundtrip.metrics", "")
                .param("rtt_ns", &Metrics::rtt_ns, "mean time of one call with wait=1, as the sender sees it")
                .unit("ns")
                .param("target_irq_ns", &Metrics::target_irq_ns,
                       "interrupt-context time (entry, handler, exit, EOI) of the targets per IPI received")
                .unit("ns")
                .param("ipis", &Metrics::ipis, "IPIs sent by the measured calls")
                .param("target_cpu", &Metrics::target_cpu,
                       "single, membarrier: the target CPU; broadcast: the number of targets");
        return s;
    }

    static WorkloadTraits traits() { return WorkloadTraits{}; }

    void check(const PointSetup& s) const override {
        const uint32_t n = s.machine.nr_cpus();
        if (p().sender >= n) s.params.fail("sender", fmt::format("machine {} has CPUs 0-{}", s.machine.name(), n - 1));
        if (n < 2) s.params.fail("mode", fmt::format("machine {} has one CPU: there is no target", s.machine.name()));
        if (p().mode != Mode::broadcast) check_peer(s, static_cast<hw::CpuId>(p().sender), p().distance, "distance");
        if (p().idle_state && !s.machine.idle_state(*p().idle_state)) {
            s.params.fail("idle_state", fmt::format("machine {} has no idle state \"{}\" (it has: {})",
                                                    s.machine.name(), *p().idle_state, s.machine.idle_state_names()));
        }
    }

    RunResult run(const RunContext& ctx) override {
        kernel::Kernel& k = *ctx.kernel;
        const auto me = static_cast<hw::CpuId>(p().sender);
        const uint32_t nr = k.nr_cpus();
        hw::CpuMask targets(nr);
        if (p().mode != Mode::broadcast) {
            targets.set(*peer_at(k.machine().topology(), me, p().distance));
        } else {
            for (hw::CpuId c = 0; c < nr; ++c) {
                if (c != me) targets.set(c);
            }
        }
        if (p().idle_state) {
            const size_t index = *k.machine().idle_state(*p().idle_state);
            targets.for_each([&](hw::CpuId c) { k.set_idle_state(c, index); });
        }
        if (p().target_state == TargetState::busy) {
            targets.for_each([&](hw::CpuId c) {
                k.run_on(c, [](hw::Cpu& cpu) -> sim::Task<> {
                    for (;;) co_await cpu.compute(sim::Picos(1'000'000));  // 1 us chunks, interruptible
                });
            });
        }
        const sim::Cycles empty(kernel::costs::empty_function);
        kernel::SmpCallFunc func = [empty](hw::Cpu& c) -> sim::Task<> { co_await c.compute_cycles(empty); };
        const auto irq_time = [&] {
            sim::Picos sum;
            targets.for_each([&](hw::CpuId c) {
                sum += k.cpu_time(c, [](const std::string&, hw::Activity a) { return a == hw::Activity::irq; });
            });
            return sum;
        };

        sim::Picos total;  // the measured calls' time, gaps excluded
        sim::Picos irq;
        uint64_t ipis = 0;
        k.run_on(me, [&](hw::Cpu& cpu) -> sim::Task<> {
            const bool single = p().mode == Mode::single;
            const hw::CpuId target = single ? *peer_at(k.machine().topology(), me, p().distance) : 0;
            for (int64_t i = 0; i <= p().rounds; ++i) {
                co_await cpu.compute(p().gap);
                if (i == 1) {  // call 0 warmed the lines
                    irq = irq_time();
                    ipis = k.smp().stats().ipis_single + k.smp().stats().ipis_many;
                }
                const sim::Picos t0 = cpu.now();
                if (single) {
                    co_await k.smp().smp_call_function_single(cpu, target, func, true);
                } else {
                    if (p().mode == Mode::membarrier) co_await k.syscall_entry_exit(cpu);
                    co_await k.smp().smp_call_function_many(cpu, targets, func, true);
                }
                if (i >= 1) total += cpu.now() - t0;
            }
            irq = irq_time() - irq;
            ipis = k.smp().stats().ipis_single + k.smp().stats().ipis_many - ipis;
            k.engine().stop();
        });
        k.boot();
        k.engine().run();

        Metrics m;
        m.rtt_ns = total.ns() / static_cast<double>(p().rounds);
        m.target_irq_ns = ipis == 0 ? 0.0 : irq.ns() / static_cast<double>(ipis);
        m.ipis = ipis;
        m.target_cpu = p().mode != Mode::broadcast ? *peer_at(k.machine().topology(), me, p().distance) : nr - 1;
        return result(m);
    }
};

const sim::Registration<Workload, IpiRoundtrip> reg(
    "workload", "ipi_roundtrip",
    "microbenchmark: synchronous cross-call round trip to an idle or busy target, or a broadcast");
const config::SchemaRegistration schema_reg("workload.ipi_roundtrip",
                                            [] { return IpiRoundtrip::params_schema().info(); });

}  // namespace

}  // namespace ipisim::workload
