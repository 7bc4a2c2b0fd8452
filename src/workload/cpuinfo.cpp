// Seed 004 (Eric Dumazet, 2022, "x86/cpu: use smp_call_function_many() in
// arch_freq_prepare_all()"): `cat /proc/cpuinfo`, repeated, on a loaded many-CPU host with a
// pre-5.19 kernel (on-demand APERF/MPERF snapshots, kernel/aperfmperf).
//
// The machine: `busy_fraction` of the CPUs other than the opener's run user code (a compute
// loop that cross-call IPIs preempt), chosen with the run's RNG stream "cpuinfo.busy"; the
// others sit in the idle state `idle_state` (and are skipped as RCU-idle). The opener on
// `opener_cpu`, `opens` times: sleeps `gap` (msleep, its CPU idles), opens /proc/cpuinfo
// (cpuinfo_open -> arch_freq_prepare_all, `variant` serial_single or many) and, with `read`,
// reads it (show_cpuinfo for every CPU: aperfmperf_get_khz, a sync IPI when the sample is
// older than 10 ms, and the printing).
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
#include <numeric>

#include "kernel/aperfmperf/aperfmperf.h"
#include "kernel/aperfmperf/msleep.h"
#include "sim/registry.h"
#include "sim/rng.h"
#include "workload/system.h"

namespace ipisim::workload {

namespace {

using sim::Picos;
using namespace sim::literals;

// [A] show_cpuinfo() per CPU besides the frequency: ~25 seq_printf fields and ~100-150 flag
// strings, plus seq_read's copy_to_user of ~1.5 KB (path length at IPC ~1-2).
constexpr uint64_t show_cpuinfo_cycles = 20'000;

struct Params {
    kernel::FreqPrepareVariant variant = kernel::FreqPrepareVariant::serial_single;
    double busy_fraction = 1.0;
    std::string idle_state;
    int64_t opens = 0;
    Picos gap;
    bool read = true;
    int64_t opener_cpu = 0;
    int64_t hz = 1000;
};

Params read_params(config::Table& t) {
    Params p;
    const auto variant = t.get<std::string>("variant");
    p.busy_fraction = t.get<double>("busy_fraction");
    p.idle_state = t.get<std::string>("idle_state");
    p.opens = t.get<int64_t>("opens");
    p.gap = t.duration("gap");
    p.read = t.get_or<bool>("read", true);
    p.opener_cpu = t.get_or<int64_t>("opener_cpu", 0);
    p.hz = t.get_or<int64_t>("hz", 1000);
    t.finish();
    if (variant == "serial_single") {
        p.variant = kernel::FreqPrepareVariant::serial_single;
    } else if (variant == "many") {
        p.variant = kernel::FreqPrepareVariant::many;
    } else {
        t.fail("variant", "must be \"serial_single\" or \"many\", got \"" + variant + "\"");
    }
    if (p.busy_fraction < 0 || p.busy_fraction > 1) t.fail("busy_fraction", "must be in [0, 1]");
    if (p.opens < 1) t.fail("opens", "must be at least 1");
    if (p.gap < 1_ms) t.fail("gap", "must be at least 1 ms");
    if (p.hz < 100 || p.hz > 1000) t.fail("hz", "must be in [100, 1000]");
    return p;
}

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
    const auto k = static_cast<size_t>(fraction * static_cast<double>(cand.size()) + 0.5);
    std::vector<bool> busy(nr_cpus, false);
    for (size_t i = 0; i < k; ++i) {
        const size_t j = i + rng.uniform(0, cand.size() - 1 - i);
        std::swap(cand[i], cand[j]);
        busy[cand[i]] = true;
    }
    return busy;
}

class Cpuinfo : public Workload {
public:
    RunResult run(config::Table& params, const RunContext& ctx) override {
        const Params p = read_params(params);
        System sys(ctx, "cpuinfo");
        if (p.opener_cpu < 0 || p.opener_cpu >= sys.nr_cpus()) {
            params.fail("opener_cpu", fmt::format("machine {} has CPUs 0-{}", sys.spec.name, sys.nr_cpus() - 1));
        }
        const auto idle_it = std::find_if(sys.spec.idle.begin(), sys.spec.idle.end(),
                                          [&](const hw::IdleState& s) { return s.name == p.idle_state; });
        if (idle_it == sys.spec.idle.end()) {
            params.fail("idle_state", fmt::format("machine {} has no idle state \"{}\"", sys.spec.name, p.idle_state));
        }
        const auto idle_index = static_cast<size_t>(idle_it - sys.spec.idle.begin());
        const auto opener = static_cast<hw::CpuId>(p.opener_cpu);
        const auto hz = static_cast<uint32_t>(p.hz);

        kernel::Aperfmperf amp(*sys.platform, sys.smp());
        amp.set_variant(p.variant);
        amp.set_hz(hz);

        const std::vector<bool> busy =
            pick_busy(sys.nr_cpus(), opener, p.busy_fraction, sim::Rng::stream(ctx.seed, "cpuinfo.busy"));
        const uint32_t user_label = hw::profile_label("user_loop");
        for (hw::CpuId c = 0; c < sys.nr_cpus(); ++c) {
            sys.cpu(c).set_idle_state(idle_index);
            if (!busy[c]) continue;
            sys.kernel->run_on(c, [user_label](hw::Cpu& cpu) -> sim::Task<> {
                auto scope = cpu.function(user_label, hw::Activity::user);
                for (;;) co_await cpu.compute(Picos(1'000'000'000'000ULL));  // 1 s slices, forever
            });
        }

        std::vector<Picos> open_lat;
        std::vector<Picos> loop_lat;
        std::vector<Picos> read_lat;
        std::vector<Picos> spin;
        const uint32_t spin_label = hw::profile_label("csd_lock_wait");
        sys.kernel->run_on(opener, [&](hw::Cpu& cpu) -> sim::Task<> {
            const hw::CpuProfile& prof = cpu.profile();
            for (int64_t i = 0; i < p.opens; ++i) {
                const uint64_t gap_ms = p.gap.count() / 1'000'000'000ULL;
                co_await kernel::msleep(cpu, sys.smp(), gap_ms, hz);
                const Picos spin0 = prof.time(spin_label, hw::Activity::spin);
                const Picos sleep0 = amp.stats().msleep_time;
                const Picos t0 = sys.eng.now();
                co_await amp.arch_freq_prepare_all(cpu);
                const Picos t1 = sys.eng.now();
                open_lat.push_back(t1 - t0);
                loop_lat.push_back(t1 - t0 - (amp.stats().msleep_time - sleep0));
                spin.push_back(prof.time(spin_label, hw::Activity::spin) - spin0);
                if (p.read) {
                    // seq_read -> c_start/c_next over the online CPUs -> show_cpuinfo()
                    for (hw::CpuId c = 0; c < sys.nr_cpus(); ++c) {
                        const uint32_t khz = co_await amp.aperfmperf_get_khz(cpu, c);
                        (void)khz;  // 0: cpufreq_quick_get(), then cpu_khz
                        co_await cpu.compute_cycles(sim::Cycles(show_cpuinfo_cycles));
                    }
                    read_lat.push_back(sys.eng.now() - t1);
                }
            }
            sys.eng.stop();
        });
        sys.kernel->boot();
        sys.eng.run();

        RunResult out;
        const auto opens = static_cast<double>(p.opens);
        const kernel::SmpStats& ss = sys.smp().stats();
        const kernel::AperfmperfStats& as = amp.stats();
        out.metrics["open_latency_us_median"] = median_us(open_lat);
        out.metrics["open_latency_us_max"] = max_us(open_lat);
        out.metrics["open_loop_us_median"] = median_us(loop_lat);
        if (p.read) {
            out.metrics["read_latency_us_median"] = median_us(read_lat);
            out.metrics["read_latency_us_max"] = max_us(read_lat);
        }
        out.metrics["open_csd_spin_us_mean"] = std::accumulate(spin.begin(), spin.end(), Picos{}).us() / opens;
        out.metrics["ipis_per_open"] = static_cast<double>(ss.ipis_single + ss.ipis_many) / opens;
        out.metrics["snapshots_per_open"] = static_cast<double>(as.snapshots) / opens;
        out.metrics["msleeps"] = as.msleeps;
        out.metrics["busy_cpus"] = std::count(busy.begin(), busy.end(), true);
        sys.record_run(out);
        return out;
    }
};

const sim::Registration<Workload, Cpuinfo> reg(
    "workload", "cpuinfo", "seed 004: repeated open+read of /proc/cpuinfo, pre-5.19 aperfmperf, serial_single vs many");

}  // namespace

}  // namespace ipisim::workload
