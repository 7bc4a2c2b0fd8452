// Microbenchmark: context-switch ping-pong between two threads bound to one CPU (lmbench
// lat_ctx, `ipisim probe`'s pipe ping-pong on one CPU, without the pipe): thread A wakes B and
// blocks, B wakes A and blocks, `rounds` times. Each hop is one wake-up (try_to_wake_up of a
// thread of the same CPU: a direct enqueue) and one switch (the machine's cpu.context_switch).
// The first round warms the lines (runqueue lock, task states) and is not counted.
#include <fmt/format.h>

#include "kernel/sched/sched.h"
#include "sim/registry.h"
#include "workload/bounds.h"
#include "workload/workload.h"

namespace ipisim::workload {

namespace {

struct Params {
    int64_t rounds = 0;
    int64_t cpu = 0;
};

struct Metrics {
    double ns_per_switch = 0;  // round trip / 2: one wake-up and one switch
    uint64_t context_switches = 0;
};

class CtxswitchPingpong : public SchemaWorkload<CtxswitchPingpong, Params, Metrics> {
public:
    static const config::Schema<Params>& params_schema() {
        static const auto s =
            config::Schema<Params>("workload.ctxswitch_pingpong", "microbenchmark: context-switch ping-pong")
                .param("rounds", &Params::rounds, "measured round trips (after one warm-up round)")
                .at_least(1)
                .at_most(kMaxCount)
                .param("cpu", &Params::cpu, "the CPU both threads are bound to")
                .at_least(0)
                .def(int64_t{0});
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const auto s =
            config::Schema<Metrics>("workload.ctxswitch_pingpong.metrics", "")
                .param("ns_per_switch", &Metrics::ns_per_switch, "round trip / 2: one wake-up and one switch")
                .unit("ns")
                .param("context_switches", &Metrics::context_switches, "switches in the measured rounds");
        return s;
    }

    static WorkloadTraits traits() { return WorkloadTraits{}; }

    void check(const PointSetup& s) const override {
        if (p().cpu >= s.machine.nr_cpus()) {
            s.params.fail("cpu", fmt::format("machine {} has CPUs 0-{}", s.machine.name(), s.machine.nr_cpus() - 1));
        }
    }

    RunResult run(const RunContext& ctx) override {
        kernel::Kernel& k = *ctx.kernel;
        kernel::Sched& sched = k.sched();
        const auto c = static_cast<hw::CpuId>(p().cpu);
        const int64_t rounds = p().rounds;
        kernel::Thread* threads[2] = {nullptr, nullptr};
        sim::Picos start;
        sim::Picos total;
        uint64_t switches = 0;
        const auto block = [&](hw::Cpu& cpu, kernel::Thread& self) {
            self.state = kernel::TaskState::uninterruptible;
            return sched.schedule(cpu);
        };
        // A wakes B and blocks, `rounds` + 1 times; B, created asleep, wakes A and blocks.
        threads[0] = &sched.spawn("pingpong_a", c, [&](hw::Cpu& cpu, kernel::Thread& self) -> sim::Task<> {
            for (int64_t r = 0; r <= rounds; ++r) {
                if (r == 1) {  // round 0 warmed the lines
                    start = cpu.now();
                    switches = sched.stats().context_switches;
                }
                co_await sched.wake_up_process(cpu, *threads[1]);
                co_await block(cpu, self);
            }
            total = cpu.now() - start;
            switches = sched.stats().context_switches - switches;
            k.engine().stop();
        });
        threads[1] =
            &sched.kthread_create_on_cpu("pingpong_b", c, [&](hw::Cpu& cpu, kernel::Thread& self) -> sim::Task<> {
                for (;;) {
                    co_await sched.wake_up_process(cpu, *threads[0]);
                    co_await block(cpu, self);
                }
            });
        k.boot();
        k.engine().run();

        Metrics m;
        m.ns_per_switch = total.ns() / static_cast<double>(2 * rounds);
        m.context_switches = switches;
        return result(m);
    }
};

const sim::Registration<Workload, CtxswitchPingpong> reg(
    "workload", "ctxswitch_pingpong", "microbenchmark: two threads on one CPU waking each other (lat_ctx)");
const config::SchemaRegistration schema_reg("workload.ctxswitch_pingpong",
                                            [] { return CtxswitchPingpong::params_schema().info(); });

}  // namespace

}  // namespace ipisim::workload
