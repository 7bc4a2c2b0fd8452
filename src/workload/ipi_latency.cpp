// Seed 002's ipi_latency module: from CPU `sender`, `rounds` times, for every CPU 0..N-1:
// store the loop counter into seven cache-line-aligned globals, then
// smp_call_function_single(cpu, ipi_latency_func, NULL, wait=1) with an empty function.
// Reports the ktime delta of the whole loop, as the module's printk does, with the GICv3
// barrier before the SGI write as `wmb` (dsb(st), before Barry Song's 2022 patch) or
// `dsb_ishst` (after). Other CPUs are idle.
#include <fmt/format.h>

#include <array>
#include <map>

#include "kernel/costs.h"
#include "kernel/irqchip/irqchip.h"
#include "sim/registry.h"
#include "workload/system.h"

namespace ipisim::workload {

namespace {

class IpiLatency : public Workload {
public:
    RunResult run(config::Table& params, const RunContext& ctx) override {
        const auto rounds = params.get<int64_t>("rounds");
        const auto barrier_name = params.get<std::string>("barrier");
        const auto sender = params.get<int64_t>("sender");
        params.finish();
        if (rounds < 1) params.fail("rounds", "must be at least 1");
        kernel::irqchip::GicIpiBarrier barrier;
        if (barrier_name == "wmb") {
            barrier = kernel::irqchip::GicIpiBarrier::wmb;
        } else if (barrier_name == "dsb_ishst") {
            barrier = kernel::irqchip::GicIpiBarrier::dsb_ishst;
        } else {
            params.fail("barrier", "must be \"wmb\" (dsb st) or \"dsb_ishst\", got \"" + barrier_name + "\"");
        }

        System sys(ctx, "ipi_latency");
        if (sys.spec.intc.kind != "gicv3") {
            params.fail("barrier",
                        fmt::format("machine {} has no GICv3 (intc kind {})", sys.spec.name, sys.spec.intc.kind));
        }
        if (sender < 0 || sender >= sys.nr_cpus()) {
            params.fail("sender", fmt::format("machine {} has CPUs 0-{}", sys.spec.name, sys.nr_cpus() - 1));
        }
        sys.kernel->irqchip().configure({.gic_ipi_barrier = barrier});
        const auto me = static_cast<hw::CpuId>(sender);

        // volatile int data0..data6 ____cacheline_aligned, homed on the sender's node.
        std::array<hw::SimVar*, 7> data{};
        for (size_t i = 0; i < data.size(); ++i) {
            data[i] = &sys.platform->memory().new_aligned_var(fmt::format("data{}", i), sys.spec.topology.node_of(me));
        }
        const sim::Cycles empty(kernel::costs::empty_function);
        kernel::SmpCallFunc ipi_latency_func = [empty](hw::Cpu& c) -> sim::Task<> { co_await c.compute_cycles(empty); };

        sim::Picos total;
        // Per-target time summed over rounds, to report by distance class.
        std::vector<sim::Picos> per_target(sys.nr_cpus());
        sys.kernel->run_on(me, [&](hw::Cpu& cpu) -> sim::Task<> {
            hw::Memory& mem = sys.platform->memory();
            const sim::Picos stime = sys.eng.now();
            for (int64_t i = 0; i < rounds; ++i) {
                for (hw::CpuId t = 0; t < sys.nr_cpus(); ++t) {
                    const sim::Picos t0 = sys.eng.now();
                    for (hw::SimVar* d : data) co_await mem.store(me, *d, t);
                    co_await sys.smp().smp_call_function_single(cpu, t, ipi_latency_func, true);
                    per_target[t] += sys.eng.now() - t0;
                }
            }
            total = sys.eng.now() - stime;
            sys.eng.stop();
        });
        sys.kernel->boot();
        sys.eng.run();

        RunResult out;
        const uint64_t calls = static_cast<uint64_t>(rounds) * sys.nr_cpus();
        out.metrics["total_ns"] = total.count() / 1000;
        out.metrics["ns_per_call"] = total.ns() / static_cast<double>(calls);
        // Mean call time by distance from the sender (self = the local shortcut).
        std::map<hw::DistanceClass, std::pair<double, uint64_t>> by_class;
        for (hw::CpuId t = 0; t < sys.nr_cpus(); ++t) {
            auto& [sum, n] = by_class[sys.spec.topology.distance(me, t)];
            sum += per_target[t].ns();
            n += static_cast<uint64_t>(rounds);
        }
        for (const auto& [cls, v] : by_class) {
            out.metrics[fmt::format("call_ns_{}", hw::to_string(cls))] = v.first / static_cast<double>(v.second);
        }
        out.metrics["ipis"] = sys.smp().stats().ipis_single;
        out.profile = sys.profile();
        sys.record_run(out);
        return out;
    }
};

const sim::Registration<Workload, IpiLatency> reg(
    "workload", "ipi_latency", "seed 002 module: rounds x smp_call_function_single(cpu, empty, wait=1) to every CPU");

}  // namespace

}  // namespace ipisim::workload
