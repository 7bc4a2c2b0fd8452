// Seed 001's fastcat benchmark (Peter Newman, "x86/resctrl: Don't workqueue local event counter
// reads"): a user thread bound to the CPUs of one L3 monitoring domain (it runs on the first of
// them) reads the MBM local and total counters of every monitoring group for one domain, by
// read()s of the groups' mon_data files; `iterations` times, each followed by a 1 s sleep.
// perf stat counts the cycles of that program only: its running time (on a CPU, spinning
// included, sleeping excluded) x the machine clock, averaged over iterations.
//
//   domain   = "local"  (its own L3 domain) | "remote" (the next L3 domain, mon_L3_01 for a
//              program bound to domain 0 [A]) | "remote_socket" (the first domain of the other
//              socket)
//   dispatch = "call_on_cpu" (6.8+, before the patch: smp_call_on_cpu) | "call_any" (after)
// The rest of the machine is idle; CPUs idle under the cpuidle governor (menu, reduced).
#include <fmt/format.h>

#include "kernel/costs.h"
#include "kernel/resctrl/resctrl.h"
#include "sim/registry.h"
#include "workload/system.h"

namespace ipisim::workload {

namespace {

// [A] fastcat's own user-space work per counter file: pread() wrapper, parsing the decimal
// value, accumulating it (~100 instructions).
constexpr uint64_t kUserPerRead = 150;

class Fastcat : public Workload {
public:
    RunResult run(config::Table& params, const RunContext& ctx) override {
        const auto groups = params.get<int64_t>("groups");
        const auto iterations = params.get<int64_t>("iterations");
        const auto domain_name = params.get<std::string>("domain");
        const auto dispatch_name = params.get<std::string>("dispatch");
        const auto sleep_ms = params.get_or<int64_t>("sleep_ms", 1000);
        params.finish();
        if (groups < 1) params.fail("groups", "must be at least 1");
        if (iterations < 1) params.fail("iterations", "must be at least 1");
        if (sleep_ms < 0) params.fail("sleep_ms", "must not be negative");
        kernel::MonDispatch dispatch = kernel::MonDispatch::call_on_cpu;
        if (dispatch_name == "call_any") {
            dispatch = kernel::MonDispatch::call_any;
        } else if (dispatch_name != "call_on_cpu") {
            params.fail("dispatch", "must be \"call_on_cpu\" or \"call_any\", got \"" + dispatch_name + "\"");
        }

        System sys(ctx, "fastcat");
        kernel::Sched sched(*sys.kernel);
        sched.cpuidle().set_enabled(true);
        kernel::Workqueue wq(sched);
        kernel::Resctrl resctrl(sched, wq);
        const hw::Topology& topo = sys.spec.topology;
        const hw::CpuId me = resctrl.domain_mask(0).first();
        const uint32_t home = resctrl.domain_of(me);
        uint32_t target = home;
        if (domain_name == "remote") {
            if (resctrl.nr_domains() < 2) params.fail("domain", "the machine has one L3 domain");
            target = home + 1;
        } else if (domain_name == "remote_socket") {
            if (topo.nr_packages() < 2) params.fail("domain", "the machine has one socket");
            target = resctrl.domain_of(topo.cpus_in_package(1).front());
        } else if (domain_name != "local") {
            params.fail("domain", "must be \"local\", \"remote\" or \"remote_socket\", got \"" + domain_name + "\"");
        }

        const sim::Picos syscall = sys.spec.cpu.syscall;
        const sim::Cycles user_per_read(kUserPerRead);
        const sim::Cycles show(kernel::costs::rdtgroup_mondata_show);
        sim::Picos measured;  // the program's running time over all iterations
        kernel::Thread& prog = sched.spawn(
            "fastcat", me,
            [&](hw::Cpu& cpu, kernel::Thread& self) -> sim::Task<> {
                static const uint32_t show_label = hw::profile_label("rdtgroup_mondata_show");
                for (int64_t it = 0; it < iterations; ++it) {
                    const sim::Picos start = sched.runtime(self);
                    for (int64_t g = 0; g < groups; ++g) {
                        for (kernel::QosEvent evt : {kernel::QosEvent::mbm_local, kernel::QosEvent::mbm_total}) {
                            co_await cpu.compute_cycles(user_per_read);
                            auto scope = cpu.function(show_label, hw::Activity::kernel);
                            co_await cpu.compute(syscall);  // entry + exit of read()
                            co_await cpu.compute_cycles(show);
                            co_await resctrl.mon_event_read(cpu, target, static_cast<uint32_t>(g), evt, dispatch);
                        }
                    }
                    measured += sched.runtime(self) - start;
                    co_await sched.msleep(cpu, static_cast<uint64_t>(sleep_ms));
                }
                sys.eng.stop();
            },
            hw::Activity::user);
        sys.kernel->boot();
        sys.eng.run();

        RunResult out;
        const auto iters = static_cast<double>(iterations);
        const double cycles = static_cast<double>(sys.spec.clock.to_cycles(measured).count()) / iters;
        out.metrics["caller_cycles"] = cycles;
        out.metrics["caller_us"] = measured.ns() / 1e3 / iters;
        out.metrics["cycles_per_read"] = cycles / static_cast<double>(2 * groups);
        out.metrics["target_domain"] = target;
        const kernel::SmpStats& smp = sys.smp().stats();
        out.metrics["ipis"] = static_cast<double>(smp.ipis_single + smp.ipis_many) / iters;
        out.metrics["polling_wakeups"] = static_cast<double>(smp.polling_wakeups) / iters;
        out.metrics["context_switches"] = static_cast<double>(sched.stats().context_switches) / iters;
        out.metrics["caller_switches"] = static_cast<double>(prog.switches_in) / iters;
        out.metrics["worker_wakeups"] = static_cast<double>(wq.stats().worker_wakeups) / iters;
        out.profile = sys.profile();
        sys.record_run(out);
        sys.eng.shutdown();  // thread frames reference the scheduler, destroyed first
        return out;
    }
};

const sim::Registration<Workload, Fastcat> reg(
    "workload", "fastcat",
    "seed 001: resctrl MBM counter reads of every group for one domain, smp_call_on_cpu vs smp_call_function_any");

}  // namespace

}  // namespace ipisim::workload
