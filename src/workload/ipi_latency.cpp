// Seed 002's ipi_latency module: from CPU `sender`, `rounds` times, for every CPU 0..N-1:
// store the loop counter into seven cache-line-aligned globals, then
// smp_call_function_single(cpu, ipi_latency_func, NULL, wait=1) with an empty function.
// Reports the ktime delta of the whole loop, as the module's printk does. The GICv3 barrier
// before the SGI write is the kernel's ([kernel] gic_barrier: wmb = dsb(st), before Barry Song's
// 2022 patch, or dsb_ishst after). Other CPUs are idle.
#include <fmt/format.h>

#include <array>
#include <map>
#include <optional>

#include "kernel/costs.h"
#include "sim/registry.h"
#include "workload/bounds.h"
#include "workload/workload.h"

namespace ipisim::workload {

namespace {

struct Params {
    int64_t rounds = 0;
    int64_t sender = 0;
};

// Mean call time by distance class from the sender; classes the machine lacks are absent.
struct Metrics {
    uint64_t total_ns = 0;
    double ns_per_call = 0;
    std::optional<double> call_ns_self;
    std::optional<double> call_ns_smt;
    std::optional<double> call_ns_same_l3;
    std::optional<double> call_ns_same_die;
    std::optional<double> call_ns_same_package;
    std::optional<double> call_ns_cross_package;
    uint64_t ipis = 0;
};

std::optional<double>& by_class(Metrics& m, hw::DistanceClass c) {
    switch (c) {
        case hw::DistanceClass::self:
            return m.call_ns_self;
        case hw::DistanceClass::smt:
            return m.call_ns_smt;
        case hw::DistanceClass::same_l3:
            return m.call_ns_same_l3;
        case hw::DistanceClass::same_die:
            return m.call_ns_same_die;
        case hw::DistanceClass::same_package:
            return m.call_ns_same_package;
        case hw::DistanceClass::cross_package:
            return m.call_ns_cross_package;
    }
    throw std::logic_error("unknown distance class");
}

class IpiLatency : public SchemaWorkload<IpiLatency, Params, Metrics> {
public:
    static const config::Schema<Params>& params_schema() {
        static const auto s = config::Schema<Params>("workload.ipi_latency", "seed 002's ipi_latency module")
                                  .param("rounds", &Params::rounds, "rounds over every CPU")
                                  .at_least(1)
                                  .at_most(kMaxCount)
                                  .param("sender", &Params::sender, "the CPU the module runs on (taskset -c)")
                                  .at_least(0);
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const char* const cls = "a target at this distance from the sender: mean time of one call";
        static const auto s = config::Schema<Metrics>("workload.ipi_latency.metrics", "")
                                  .param("total_ns", &Metrics::total_ns, "ktime delta of the whole loop")
                                  .unit("ns")
                                  .param("ns_per_call", &Metrics::ns_per_call, "the delta per call")
                                  .unit("ns")
                                  .param("call_ns_self", &Metrics::call_ns_self, cls)
                                  .unit("ns")
                                  .param("call_ns_smt", &Metrics::call_ns_smt, cls)
                                  .unit("ns")
                                  .param("call_ns_same_l3", &Metrics::call_ns_same_l3, cls)
                                  .unit("ns")
                                  .param("call_ns_same_die", &Metrics::call_ns_same_die, cls)
                                  .unit("ns")
                                  .param("call_ns_same_package", &Metrics::call_ns_same_package, cls)
                                  .unit("ns")
                                  .param("call_ns_cross_package", &Metrics::call_ns_cross_package, cls)
                                  .unit("ns")
                                  .param("ipis", &Metrics::ipis, "CALL_FUNCTION_SINGLE IPIs sent");
        return s;
    }
    static WorkloadTraits traits() { return WorkloadTraits{.reports_profile = true}; }

    void check(const PointSetup& s) const override {
        if (p().sender >= s.machine.nr_cpus()) {
            s.params.fail("sender", fmt::format("machine {} has CPUs 0-{}", s.machine.name(), s.machine.nr_cpus() - 1));
        }
    }

    RunResult run(const RunContext& ctx) override {
        kernel::Kernel& k = *ctx.kernel;
        const int64_t rounds = p().rounds;
        const auto me = static_cast<hw::CpuId>(p().sender);
        const uint32_t nr_cpus = k.nr_cpus();

        // volatile int data0..data6 ____cacheline_aligned, homed on the sender's node.
        std::array<hw::SimVar*, 7> data{};
        for (size_t i = 0; i < data.size(); ++i) {
            data[i] = &k.new_aligned_var(fmt::format("data{}", i), k.machine().cpu_to_node(me));
        }
        const sim::Cycles empty(kernel::costs::empty_function);
        kernel::SmpCallFunc ipi_latency_func = [empty](hw::Cpu& c) -> sim::Task<> { co_await c.compute_cycles(empty); };

        sim::Picos total;
        // Per-target time summed over rounds, to report by distance class.
        std::vector<sim::Picos> per_target(nr_cpus);
        k.run_on(me, [&](hw::Cpu& cpu) -> sim::Task<> {
            const sim::Picos stime = cpu.now();
            for (int64_t i = 0; i < rounds; ++i) {
                for (hw::CpuId t = 0; t < nr_cpus; ++t) {
                    const sim::Picos t0 = cpu.now();
                    for (hw::SimVar* d : data) co_await k.write_once(cpu, *d, t);
                    co_await k.smp().smp_call_function_single(cpu, t, ipi_latency_func, true);
                    per_target[t] += cpu.now() - t0;
                }
            }
            total = cpu.now() - stime;
            k.engine().stop();
        });
        k.boot();
        k.engine().run();

        Metrics m;
        const uint64_t calls = static_cast<uint64_t>(rounds) * nr_cpus;
        m.total_ns = total.count() / 1000;
        m.ns_per_call = total.ns() / static_cast<double>(calls);
        std::map<hw::DistanceClass, std::pair<double, uint64_t>> sums;
        for (hw::CpuId t = 0; t < nr_cpus; ++t) {
            auto& [sum, n] = sums[k.machine().topology().distance(me, t)];
            sum += per_target[t].ns();
            n += static_cast<uint64_t>(rounds);
        }
        for (const auto& [cls, v] : sums) by_class(m, cls) = v.first / static_cast<double>(v.second);
        m.ipis = k.smp().stats().ipis_single;
        return result(m);
    }
};

const sim::Registration<Workload, IpiLatency> reg(
    "workload", "ipi_latency", "seed 002 module: rounds x smp_call_function_single(cpu, empty, wait=1) to every CPU");
const config::SchemaRegistration schema_reg("workload.ipi_latency", [] { return IpiLatency::params_schema().info(); });

}  // namespace

}  // namespace ipisim::workload
