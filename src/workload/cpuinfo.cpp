// Seed 004 (Eric Dumazet, 2022, "x86/cpu: use smp_call_function_many() in
// arch_freq_prepare_all()"): `cat /proc/cpuinfo`, repeated, on a loaded many-CPU host with a
// pre-5.19 kernel (on-demand APERF/MPERF snapshots, kernel/aperfmperf).
//
// The machine: `busy_fraction` of the CPUs other than the opener's run user code (a compute
// loop that cross-call IPIs preempt), chosen with the run's RNG stream "cpuinfo.busy"; the
// others sit in the idle state `idle_state` (and are skipped as RCU-idle). The opener on
// `opener_cpu`, `opens` times: sleeps `gap` (msleep, its CPU idles), opens /proc/cpuinfo
// (cpuinfo_open -> arch_freq_prepare_all, [kernel] arch_freq_prepare_all serial_single or many)
// and, with `read`, reads it (show_cpuinfo for every CPU: aperfmperf_get_khz, a sync IPI when
// the sample is older than 10 ms, and the printing). msleep rounds to the kernel's HZ.
//
// The sample age an open sees is about `gap`: each open refreshes the samples of the busy CPUs.
// So gap < 1 s gives the steady state of frequent readers (refresh, no msleep); gap > 1 s the
// rare reader that finds every sample stale (serial_single: msleep(10); many: wait). The first
// open (at ~gap after boot, samples zero-initialised) is of the same kind and counts.
//
// Metrics (latencies over the opens, in us): open_latency (cpuinfo_open's
// arch_freq_prepare_all, what the patch changes), open_loop (the same minus msleep: the seed's
// "latency of the above loop"), read_latency (the whole read after the open); per open: IPIs
// sent, csd_lock spin of the opener during the open, CPUs refreshed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "kernel/aperfmperf/aperfmperf.h"
#include "kernel/aperfmperf/msleep.h"
#include "sim/registry.h"
#include "sim/rng.h"
#include "workload/bounds.h"
#include "workload/workload.h"

namespace ipisim::workload {

namespace {

using sim::Picos;
using namespace sim::literals;

// [A] show_cpuinfo() per CPU besides the frequency: ~25 seq_printf fields and ~100-150 flag
// strings, plus seq_read's copy_to_user of ~1.5 KB (path length at IPC ~1-2).
constexpr uint64_t kShowCpuinfoCycles = 20'000;

struct Params {
    double busy_fraction = 1.0;
    std::string idle_state;
    int64_t opens = 0;
    Picos gap;
    bool read = true;
    int64_t opener_cpu = 0;
};

struct Metrics {
    double open_latency_us_median = 0;
    double open_latency_us_max = 0;
    double open_loop_us_median = 0;
    std::optional<double> read_latency_us_median;
    std::optional<double> read_latency_us_max;
    double open_csd_spin_us_mean = 0;
    double ipis_per_open = 0;
    double snapshots_per_open = 0;
    uint64_t msleeps = 0;
    int64_t busy_cpus = 0;
};

double median_us(std::vector<Picos> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 == 1 ? v[n / 2].us() : (v[n / 2 - 1].us() + v[n / 2].us()) / 2;
}

double max_us(const std::vector<Picos>& v) {
    return std::max_element(v.begin(), v.end())->us();
}

// Picks round(fraction x candidates) CPUs (partial Fisher-Yates over the candidates).
std::vector<bool> pick_busy(uint32_t nr_cpus, hw::CpuId opener, double fraction, sim::Rng rng) {
    std::vector<hw::CpuId> cand;
    for (hw::CpuId c = 0; c < nr_cpus; ++c) {
        if (c != opener) cand.push_back(c);
    }
    const auto k = static_cast<size_t>(std::floor(fraction * static_cast<double>(cand.size()) + 0.5));
    std::vector<bool> busy(nr_cpus, false);
    for (size_t i = 0; i < k; ++i) {
        const size_t j = i + rng.uniform(0, cand.size() - 1 - i);
        std::swap(cand[i], cand[j]);
        busy[cand[i]] = true;
    }
    return busy;
}

class Cpuinfo : public SchemaWorkload<Cpuinfo, Params, Metrics> {
public:
    static const config::Schema<Params>& params_schema() {
        static const auto s =
            config::Schema<Params>("workload.cpuinfo", "seed 004: repeated open+read of /proc/cpuinfo")
                .param("busy_fraction", &Params::busy_fraction, "share of the other CPUs running user code")
                .at_least(0)
                .at_most(1)
                .param("idle_state", &Params::idle_state, "the idle state of the other CPUs (a machine [[idle]] name)")
                .param("opens", &Params::opens, "opens of /proc/cpuinfo")
                .at_least(1)
                .at_most(kMaxCount)
                .param("gap", &Params::gap, "msleep before each open")
                .at_least(1e9)
                .at_most(kMaxSimulatedPicos)
                .param("read", &Params::read, "read the file after each open (show_cpuinfo for every CPU)")
                .def(true)
                .param("opener_cpu", &Params::opener_cpu, "the CPU that opens and reads")
                .def(int64_t{0})
                .at_least(0);
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const auto s =
            config::Schema<Metrics>("workload.cpuinfo.metrics", "")
                .param("open_latency_us_median", &Metrics::open_latency_us_median, "arch_freq_prepare_all, median")
                .unit("us")
                .param("open_latency_us_max", &Metrics::open_latency_us_max, "arch_freq_prepare_all, max")
                .unit("us")
                .param("open_loop_us_median", &Metrics::open_loop_us_median, "the same without msleep, median")
                .unit("us")
                .param("read_latency_us_median", &Metrics::read_latency_us_median, "the read after the open, median")
                .unit("us")
                .when("read")
                .param("read_latency_us_max", &Metrics::read_latency_us_max, "the read after the open, max")
                .unit("us")
                .when("read")
                .param("open_csd_spin_us_mean", &Metrics::open_csd_spin_us_mean,
                       "the opener's csd_lock spin during an open, mean")
                .unit("us")
                .param("ipis_per_open", &Metrics::ipis_per_open, "cross-call IPIs per open (reads included)")
                .param("snapshots_per_open", &Metrics::snapshots_per_open, "APERF/MPERF snapshots per open")
                .param("msleeps", &Metrics::msleeps, "msleep(10) calls over the opens")
                .param("busy_cpus", &Metrics::busy_cpus, "CPUs running user code");
        return s;
    }
    static WorkloadTraits traits() { return WorkloadTraits{.x86_only = true}; }

    void check(const PointSetup& s) const override {
        if (s.kernel.parsed_version() >= kernel::Version{5, 19}) {
            s.kernel_table.fail("version",
                                "the cpuinfo workload models arch_freq_prepare_all of 4.13-5.18; 5.19+ "
                                "samples APERF/MPERF in the tick without IPIs (docs/mechanisms.md §6.1)");
        }
        if (p().opener_cpu >= s.machine.nr_cpus()) {
            s.params.fail("opener_cpu",
                          fmt::format("machine {} has CPUs 0-{}", s.machine.name(), s.machine.nr_cpus() - 1));
        }
        if (!s.machine.idle_state(p().idle_state)) {
            s.params.fail("idle_state", fmt::format("machine {} has no idle state \"{}\" (it has {})", s.machine.name(),
                                                    p().idle_state, s.machine.idle_state_names()));
        }
    }

    RunResult run(const RunContext& ctx) override {
        kernel::Kernel& k = *ctx.kernel;
        const Params& p = this->p();
        const size_t idle_index = *k.machine().idle_state(p.idle_state);
        const auto opener = static_cast<hw::CpuId>(p.opener_cpu);
        const uint32_t hz = k.hz();
        kernel::Aperfmperf& amp = k.aperfmperf();

        const std::vector<bool> busy =
            pick_busy(k.nr_cpus(), opener, p.busy_fraction, sim::Rng::stream(ctx.seed, "cpuinfo.busy"));
        const uint32_t user_label = hw::profile_label("user_loop");
        for (hw::CpuId c = 0; c < k.nr_cpus(); ++c) {
            k.set_idle_state(c, idle_index);
            if (!busy[c]) continue;
            k.run_on(c, [user_label](hw::Cpu& cpu) -> sim::Task<> {
                auto scope = cpu.function(user_label, hw::Activity::user);
                for (;;) co_await cpu.compute(Picos(1'000'000'000'000ULL));  // 1 s slices, forever
            });
        }

        std::vector<Picos> open_lat;
        std::vector<Picos> loop_lat;
        std::vector<Picos> read_lat;
        std::vector<Picos> spin;
        const uint32_t spin_label = hw::profile_label("csd_lock_wait");
        k.run_on(opener, [&](hw::Cpu& cpu) -> sim::Task<> {
            const hw::CpuProfile& prof = cpu.profile();
            for (int64_t i = 0; i < p.opens; ++i) {
                const uint64_t gap_ms = p.gap.count() / 1'000'000'000ULL;
                co_await kernel::msleep(cpu, k.smp(), gap_ms, hz);
                const Picos spin0 = prof.time(spin_label, hw::Activity::spin);
                const Picos sleep0 = amp.stats().msleep_time;
                const Picos t0 = cpu.now();
                co_await amp.arch_freq_prepare_all(cpu);
                const Picos t1 = cpu.now();
                open_lat.push_back(t1 - t0);
                loop_lat.push_back(t1 - t0 - (amp.stats().msleep_time - sleep0));
                spin.push_back(prof.time(spin_label, hw::Activity::spin) - spin0);
                if (p.read) {
                    // seq_read -> c_start/c_next over the online CPUs -> show_cpuinfo()
                    for (hw::CpuId c = 0; c < k.nr_cpus(); ++c) {
                        const uint32_t khz = co_await amp.aperfmperf_get_khz(cpu, c);
                        (void)khz;  // 0: cpufreq_quick_get(), then cpu_khz
                        co_await cpu.compute_cycles(sim::Cycles(kShowCpuinfoCycles));
                    }
                    read_lat.push_back(cpu.now() - t1);
                }
            }
            k.engine().stop();
        });
        k.boot();
        k.engine().run();

        Metrics m;
        const auto opens = static_cast<double>(p.opens);
        const kernel::SmpStats& ss = k.smp().stats();
        const kernel::AperfmperfStats& as = amp.stats();
        m.open_latency_us_median = median_us(open_lat);
        m.open_latency_us_max = max_us(open_lat);
        m.open_loop_us_median = median_us(loop_lat);
        if (p.read) {
            m.read_latency_us_median = median_us(read_lat);
            m.read_latency_us_max = max_us(read_lat);
        }
        m.open_csd_spin_us_mean = std::accumulate(spin.begin(), spin.end(), Picos{}).us() / opens;
        m.ipis_per_open = static_cast<double>(ss.ipis_single + ss.ipis_many) / opens;
        m.snapshots_per_open = static_cast<double>(as.snapshots) / opens;
        m.msleeps = as.msleeps;
        m.busy_cpus = std::count(busy.begin(), busy.end(), true);
        return result(m);
    }
};

const sim::Registration<Workload, Cpuinfo> reg(
    "workload", "cpuinfo", "seed 004: repeated open+read of /proc/cpuinfo, pre-5.19 aperfmperf, serial_single vs many");
const config::SchemaRegistration schema_reg("workload.cpuinfo", [] { return Cpuinfo::params_schema().info(); });

}  // namespace

}  // namespace ipisim::workload
