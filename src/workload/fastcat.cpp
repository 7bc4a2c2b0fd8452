// Seed 001's fastcat benchmark (Peter Newman, "x86/resctrl: Don't workqueue local event counter
// reads"): a user thread bound to the CPUs of one L3 monitoring domain (it runs on the first of
// them) reads the MBM local and total counters of every monitoring group for one domain, by
// read()s of the groups' mon_data files; `iterations` times, each followed by a `sleep_ms`
// sleep. perf stat counts the cycles of that program only: its running time (on a CPU,
// spinning included, sleeping excluded) x the machine clock, averaged over iterations.
//
//   domain = "local"  (its own L3 domain) | "remote" (the next L3 domain, mon_L3_01 for a
//            program bound to domain 0 [A]) | "remote_socket" (the first domain of the other
//            socket)
// How mon_event_read() dispatches is the kernel's: [kernel] resctrl_dispatch, call_on_cpu (6.8+,
// before the patch: smp_call_on_cpu) or call_any (after: smp_call_function_any). The rest of the
// machine is idle; CPUs idle under the cpuidle governor (menu, reduced).
#include <fmt/format.h>

#include "kernel/costs.h"
#include "kernel/resctrl/resctrl.h"
#include "sim/registry.h"
#include "workload/bounds.h"
#include "workload/workload.h"

namespace ipisim::workload {

namespace {

// [A] fastcat's own user-space work per counter file: pread() wrapper, parsing the decimal
// value, accumulating it (~100 instructions).
constexpr uint64_t kUserPerRead = 150;

enum class Domain : uint8_t { local, remote, remote_socket };

struct Params {
    int64_t groups = 0;
    int64_t iterations = 0;
    Domain domain = Domain::local;
    int64_t sleep_ms = 1000;
};

struct Metrics {
    double caller_cycles = 0;
    double caller_us = 0;
    double cycles_per_read = 0;
    uint32_t target_domain = 0;
    double ipis = 0;
    double polling_wakeups = 0;
    double context_switches = 0;
    double caller_switches = 0;
    double worker_wakeups = 0;
};

class Fastcat : public SchemaWorkload<Fastcat, Params, Metrics> {
public:
    static const config::Schema<Params>& params_schema() {
        static const auto s =
            config::Schema<Params>("workload.fastcat", "seed 001's fastcat: resctrl MBM counter reads")
                .param("groups", &Params::groups, "monitoring groups; two counter files (local, total) each")
                .at_least(1)
                .at_most(kMaxCount)
                .param("iterations", &Params::iterations, "rounds over every group, each followed by a sleep")
                .at_least(1)
                .at_most(kMaxCount)
                .choice(
                    "domain", &Params::domain,
                    {{"local", Domain::local}, {"remote", Domain::remote}, {"remote_socket", Domain::remote_socket}},
                    "the L3 monitoring domain read: the program's own, the next one, or the other socket's first")
                .param("sleep_ms", &Params::sleep_ms, "sleep after each iteration")
                .unit("ms")
                .def(int64_t{1000})
                .at_least(0)
                .at_most(1e9);
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const auto s =
            config::Schema<Metrics>("workload.fastcat.metrics", "")
                .param("caller_cycles", &Metrics::caller_cycles, "perf stat cycles of the program per iteration")
                .param("caller_us", &Metrics::caller_us, "the program's running time per iteration")
                .unit("us")
                .param("cycles_per_read", &Metrics::cycles_per_read, "caller cycles per counter read")
                .param("target_domain", &Metrics::target_domain, "the L3 domain read")
                .param("ipis", &Metrics::ipis, "cross-call IPIs per iteration")
                .param("polling_wakeups", &Metrics::polling_wakeups, "IPIs avoided by polling idle, per iteration")
                .param("context_switches", &Metrics::context_switches, "context switches per iteration")
                .param("caller_switches", &Metrics::caller_switches, "switches into the program per iteration")
                .param("worker_wakeups", &Metrics::worker_wakeups, "kworker wake-ups per iteration");
        return s;
    }
    static WorkloadTraits traits() { return WorkloadTraits{.x86_only = true, .reports_profile = true}; }

    void check(const PointSetup& s) const override {
        const hw::Topology& topo = s.machine.topology();
        if (p().domain == Domain::remote && topo.nr_l3() < 2) s.params.fail("domain", "the machine has one L3 domain");
        if (p().domain == Domain::remote_socket && topo.nr_packages() < 2) {
            s.params.fail("domain", "the machine has one socket");
        }
    }

    RunResult run(const RunContext& ctx) override {
        kernel::Kernel& k = *ctx.kernel;
        kernel::Sched& sched = k.sched();
        sched.cpuidle().set_enabled(true);
        kernel::Resctrl& resctrl = k.resctrl();
        const hw::Topology& topo = k.machine().topology();
        const hw::CpuId me = resctrl.domain_mask(0).first();
        const uint32_t home = resctrl.domain_of(me);
        uint32_t target = home;
        if (p().domain == Domain::remote) target = home + 1;
        if (p().domain == Domain::remote_socket) target = resctrl.domain_of(topo.cpus_in_package(1).front());

        const sim::Cycles user_per_read(kUserPerRead);
        const sim::Cycles show(kernel::costs::rdtgroup_mondata_show);
        const int64_t groups = p().groups;
        const int64_t iterations = p().iterations;
        const auto sleep_ms = static_cast<uint64_t>(p().sleep_ms);
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
                            co_await k.syscall_entry_exit(cpu);  // entry + exit of read()
                            co_await cpu.compute_cycles(show);
                            co_await resctrl.mon_event_read(cpu, target, static_cast<uint32_t>(g), evt);
                        }
                    }
                    measured += sched.runtime(self) - start;
                    co_await sched.msleep(cpu, sleep_ms);
                }
                k.engine().stop();
            },
            hw::Activity::user);
        k.boot();
        k.engine().run();

        Metrics m;
        const auto iters = static_cast<double>(iterations);
        m.caller_cycles = static_cast<double>(k.machine().clock().to_cycles(measured).count()) / iters;
        m.caller_us = measured.ns() / 1e3 / iters;
        m.cycles_per_read = m.caller_cycles / static_cast<double>(2 * groups);
        m.target_domain = target;
        const kernel::SmpStats& smp = k.smp().stats();
        m.ipis = static_cast<double>(smp.ipis_single + smp.ipis_many) / iters;
        m.polling_wakeups = static_cast<double>(smp.polling_wakeups) / iters;
        m.context_switches = static_cast<double>(sched.stats().context_switches) / iters;
        m.caller_switches = static_cast<double>(prog.switches_in) / iters;
        m.worker_wakeups = static_cast<double>(k.workqueue().stats().worker_wakeups) / iters;
        return result(m);
    }
};

const sim::Registration<Workload, Fastcat> reg(
    "workload", "fastcat",
    "seed 001: resctrl MBM counter reads of every group for one domain, smp_call_on_cpu vs smp_call_function_any");
const config::SchemaRegistration schema_reg("workload.fastcat", [] { return Fastcat::params_schema().info(); });

}  // namespace

}  // namespace ipisim::workload
