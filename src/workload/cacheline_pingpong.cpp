// Microbenchmark: cache-line ping-pong between two CPUs (core-to-core-latency's CAS ping-pong,
// `ipisim probe`'s cache-line test). CPU `cpu` and its partner, the lowest-numbered CPU at
// `distance` from it, take turns on one cache-line-aligned counter homed on `cpu`'s node: each
// spins (loads) until the counter holds its turn's value, then writes the next one with a
// cmpxchg. The one-way latency is the round trip over two, as core-to-core-latency reports it
// (docs/calibration.md's table). The first round warms the line and is not counted.
#include <fmt/format.h>

#include "hw/cpu/spin.h"
#include "sim/registry.h"
#include "workload/bounds.h"
#include "workload/peer.h"
#include "workload/workload.h"

namespace ipisim::workload {

namespace {

struct Params {
    int64_t rounds = 0;
    int64_t cpu = 0;
    hw::DistanceClass distance = hw::DistanceClass::same_l3;
};

struct Metrics {
    double one_way_ns = 0;  // round trip / 2
    uint32_t peer_cpu = 0;
};

class CachelinePingpong : public SchemaWorkload<CachelinePingpong, Params, Metrics> {
public:
    static const config::Schema<Params>& params_schema() {
        static const auto s =
            config::Schema<Params>("workload.cacheline_pingpong", "microbenchmark: cache-line CAS ping-pong")
                .param("rounds", &Params::rounds, "measured round trips (after one warm-up round)")
                .at_least(1)
                .at_most(kMaxCount)
                .param("cpu", &Params::cpu, "the first CPU (the line is homed on its node)")
                .at_least(0)
                .def(int64_t{0})
                .choice("distance", &Params::distance, distance_choices(),
                        "the partner is the lowest-numbered CPU at this distance from `cpu`")
                .def(hw::DistanceClass::same_l3);
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const auto s = config::Schema<Metrics>("workload.cacheline_pingpong.metrics", "")
                                  .param("one_way_ns", &Metrics::one_way_ns, "one-way transfer: round trip / 2")
                                  .unit("ns")
                                  .param("peer_cpu", &Metrics::peer_cpu, "the partner CPU");
        return s;
    }

    static WorkloadTraits traits() { return WorkloadTraits{}; }

    void check(const PointSetup& s) const override {
        if (p().cpu >= s.machine.nr_cpus()) {
            s.params.fail("cpu", fmt::format("machine {} has CPUs 0-{}", s.machine.name(), s.machine.nr_cpus() - 1));
        }
        check_peer(s, static_cast<hw::CpuId>(p().cpu), p().distance, "distance");
    }

    RunResult run(const RunContext& ctx) override {
        kernel::Kernel& k = *ctx.kernel;
        const auto a = static_cast<hw::CpuId>(p().cpu);
        const hw::CpuId b = *peer_at(k.machine().topology(), a, p().distance);
        hw::SimVar& line = k.new_aligned_var("pingpong", k.machine().cpu_to_node(a));
        hw::Memory& mem = k.platform().memory();
        const auto hops = static_cast<uint64_t>(2 * (p().rounds + 1));
        sim::Picos start;
        sim::Picos total;
        // CPU a writes the odd values, b the even ones: a turn's value is the previous one + 1.
        const auto player = [&](uint64_t first) {
            return [&, first](hw::Cpu& cpu) -> sim::Task<> {
                for (uint64_t v = first; v < hops; v += 2) {
                    // The CAS loop: a failed attempt also takes the line (LOCK CMPXCHG).
                    for (;;) {
                        const uint64_t old = co_await mem.cmpxchg(cpu.id(), line, v, v + 1);
                        if (old == v) break;
                    }
                    if (v == 2) start = cpu.now();  // a's turn of round 1: round 0 warmed the line
                }
                if (cpu.id() == a) {
                    // b's reply to a's last write ends the last round.
                    co_await hw::spin_until(cpu, mem, line, [&](uint64_t x) { return x == hops; });
                    total = cpu.now() - start;
                    k.engine().stop();
                }
            };
        };
        k.run_on(a, player(0));
        k.run_on(b, player(1));
        k.boot();
        k.engine().run();

        Metrics m;
        m.one_way_ns = total.ns() / static_cast<double>(2 * p().rounds);
        m.peer_cpu = b;
        return result(m);
    }
};

const sim::Registration<Workload, CachelinePingpong> reg(
    "workload", "cacheline_pingpong", "microbenchmark: cache-line ping-pong between two CPUs at a distance class");
const config::SchemaRegistration schema_reg("workload.cacheline_pingpong",
                                            [] { return CachelinePingpong::params_schema().info(); });

}  // namespace

}  // namespace ipisim::workload
