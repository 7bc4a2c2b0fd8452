#include "probe/probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <exception>
#include <functional>
#include <stdexcept>

#include "probe/cacheline.h"
#include "probe/context_switch.h"
#include "probe/core_clock.h"
#include "probe/futex_wake.h"
#include "probe/membarrier.h"
#include "probe/page_fault.h"
#include "probe/placement.h"
#include "probe/realtime.h"

namespace ipisim::probe {

namespace {

class Prober {
public:
    Prober(ProbeResults& r, const ProbeOptions& o)
        : r_(r),
          o_(o),
          effort_(o.effort  ? *o.effort
                  : o.quick ? quick_effort()
                            : full_effort()) {}

    void run() {
        r_.repeats = effort_.repeats;
        r_.load_average = load_average();
        std::string why;
        if (!o_.realtime) {
            skip("real-time priority", "--no-realtime: measuring threads share their CPUs with other work");
        } else if (realtime_permitted(&why)) {
            r_.realtime = true;
        } else {
            skip("real-time priority", why + ": measuring threads share their CPUs with other work");
        }
        set_realtime(r_.realtime);
        r_.info = read_host_info();
        r_.topology = load_host_topology();
        if (!r_.topology.skeleton_error.empty()) {
            skip("hwloc topology", r_.topology.skeleton_error + "; host.toml gets a flat topology of the allowed CPUs");
        }
        choose_cpus();
        r_.cpuidle = read_cpuidle(r_.caller_cpu);
        if (r_.cpuidle.states.empty()) {
            skip("cpuidle states",
                 r_.cpuidle.absent_reason + (r_.info.virtualized() ? " (a VM: the guest idles with HLT)" : ""));
        }
        if (!r_.info.dmesg_read) skip("dmesg (interrupt-controller routing)", r_.info.dmesg_status);
        if (!r_.info.cpuid_read) skip("CPUID hypervisor leaves", "no x86 CPUID on this machine");

        step("core clock", [&] {
            r_.core_clock_mhz = summarize(core_clock_mhz(r_.caller_cpu, effort_));
            if (r_.core_clock_mhz.n == 0) {
                skip("core clock", "no dependent-multiply chain for this architecture");
            } else if (!plausible_core_clock_mhz(r_.core_clock_mhz.median)) {
                skip("core clock", fmt::format("the dependent-multiply chain read {:.0f} MHz, not a core's clock "
                                               "(0.3 to 7 GHz): not used",
                                               r_.core_clock_mhz.median));
                r_.core_clock_mhz = Spread{};
            }
        });
        step("clock read",
             [&] { r_.clock_read_ns = summarize(clock_read_ns(r_.caller_cpu, effort_.ops(100'000), effort_)); });
        step("cache-line transfer (CAS ping-pong)", [&] { cacheline(); });
        step("null syscall",
             [&] { r_.syscall_ns = summarize(null_syscall_ns(r_.caller_cpu, effort_.ops(200'000), effort_)); });
        step("pipe ping-pong, one CPU", [&] {
            r_.pipe_same_cpu_ns =
                summarize(pipe_ping_pong_ns(r_.caller_cpu, r_.caller_cpu, effort_.ops(5'000), effort_));
        });
        step("anonymous page fault",
             [&] { r_.anon_fault_ns = summarize(anon_write_fault_ns(r_.caller_cpu, effort_.ops(8192), effort_)); });
        step("madvise(MADV_DONTNEED) + refault, one thread", [&] { dontneed(std::nullopt); });
        if (!r_.target_cpu) {
            for (const char* what :
                 {"membarrier IPI round trip", "pipe ping-pong across CPUs", "futex wake-up by idle time",
                  "madvise + refault with a second thread (shootdown)"}) {
                skip(what, "only one CPU is available to this process");
            }
            return;
        }
        const int target = *r_.target_cpu;
        r_.pair_line_ns = pair_median_ns(r_.caller_cpu, target);
        placed_step("membarrier IPI round trip", [&] { membarrier(target); });
        placed_step("pipe ping-pong across CPUs", [&] {
            r_.pipe_cross_cpu_ns = summarize(pipe_ping_pong_ns(r_.caller_cpu, target, effort_.ops(5'000), effort_));
        });
        placed_step("futex wake-up by idle time", [&] {
            const int wakes = effort_.wakes;
            for (const WakeByIdle& w :
                 futex_wake_by_idle(r_.caller_cpu, target, {10'000, 100'000, 1'000'000, 10'000'000}, wakes, effort_)) {
                r_.futex_wake.push_back(WakeFigure{w.idle_ns, summarize(w.wake_ns)});
            }
        });
        placed_step("madvise + refault with a second thread (shootdown)", [&] { dontneed(target); });
    }

private:
    void skip(const std::string& what, const std::string& why) { r_.skipped.push_back(Skipped{what, why}); }

    void step(const std::string& what, const std::function<void()>& fn) {
        if (o_.progress) o_.progress(what);
        try {
            fn();
        } catch (const std::exception& e) {
            skip(what, e.what());
        }
    }

    // The cache-line step's median for the pair (a, b), either order; 0 if it was not measured.
    [[nodiscard]] double pair_median_ns(int a, int b) const {
        for (const ClassLatency& c : r_.cacheline) {
            for (size_t i = 0; i < c.pairs.size(); ++i) {
                const auto [x, y] = c.pairs[i];
                if ((x == a && y == b) || (x == b && y == a)) return c.pair_medians_ns[i];
            }
        }
        return 0;
    }

    // A step on the caller and target CPUs, under the placement the cache-line step saw
    // (placement.h): measured again, up to 3 times, while the pair's line latency just before or
    // after it says the host moved the CPUs. A retry drops what the attempt before added.
    void placed_step(const std::string& what, const std::function<void()>& fn) {
        if (r_.pair_line_ns <= 0 || !r_.target_cpu) {
            step(what, fn);
            return;
        }
        constexpr int kAttempts = 3;
        const size_t wakes = r_.futex_wake.size();
        const size_t dontneeds = r_.dontneed.size();
        const size_t skips = r_.skipped.size();
        const PlacementCheck check = measure_at_placement(
            r_.caller_cpu, *r_.target_cpu, r_.pair_line_ns, kAttempts, [&] { step(what, fn); },
            [&](const PlacementCheck&) {
                r_.futex_wake.resize(wakes);
                r_.dontneed.resize(dontneeds);
                r_.skipped.resize(skips);
            });
        r_.placement.push_back(StepPlacement{what, check});
    }

    // A figure meant to include one IPI per operation that mostly did not send one (the other
    // thread was not running: a busy machine without real-time priority) is flagged, not hidden.
    void warn_if_not_sent(const std::string& what, const std::optional<double>& per_op, const char* row) {
        if (!per_op) {
            skip(what + ": IPI count", "/proc/interrupts was not readable");
        } else if (*per_op < 0.9) {
            skip(what, fmt::format("only {:.2f} \"{}\" interrupts per operation (expected 1): the other thread was "
                                   "mostly not running, so the figure is not an IPI round trip",
                                   *per_op, row));
        }
    }

    // The measuring CPU is the first task CPU; the other side the next one (another core first).
    void choose_cpus() {
        const std::vector<int>& order = r_.topology.task_order;
        if (order.empty()) throw std::runtime_error("no CPU is available to this process");
        r_.caller_cpu = order[0];
        if (order.size() > 1) r_.target_cpu = order[1];
    }

    void cacheline() {
        const std::vector<HostCpu>& cpus = r_.topology.cpus;
        if (cpus.size() < 2) {
            skip("cache-line transfer (CAS ping-pong)", "only one CPU is available to this process");
            return;
        }
        // Many pairs (big machines): fewer samples and round trips per pair, within a time budget
        // (20 s full, 3 s quick at ~200 ns a round trip); each class still gets many samples.
        const size_t pairs = cpus.size() * (cpus.size() - 1) / 2;
        Effort per_pair = effort_;
        if (cpus.size() > 8) per_pair.repeats = std::max(3, effort_.repeats / 4);
        const double budget_ns = o_.quick ? 3e9 : 20e9;
        const double fit = budget_ns / (static_cast<double>(pairs) *
                                        static_cast<double>(per_pair.repeats + per_pair.warmup_repeats) * 200.0);
        const uint64_t round_trips = std::clamp<uint64_t>(static_cast<uint64_t>(fit), 100, effort_.ops(20'000));
        std::vector<std::vector<double>> samples(hw::kDistanceClasses);
        for (size_t i = 0; i < cpus.size(); ++i) {
            for (size_t j = i + 1; j < cpus.size(); ++j) {
                const int a = cpus[i].os_index;
                const int b = cpus[j].os_index;
                const hw::DistanceClass d = r_.topology.distance(a, b);
                ClassLatency* cls = nullptr;
                for (ClassLatency& c : r_.cacheline) {
                    if (c.distance == d) cls = &c;
                }
                if (cls == nullptr) {
                    r_.cacheline.push_back(ClassLatency{d, {}, {}, {}, round_trips});
                    cls = &r_.cacheline.back();
                }
                const std::vector<double> s = cas_ping_pong_ns(a, b, round_trips, per_pair);
                cls->pairs.emplace_back(a, b);
                cls->pair_medians_ns.push_back(summarize(s).median);
                auto& all = samples[static_cast<size_t>(d)];
                all.insert(all.end(), s.begin(), s.end());
            }
        }
        for (ClassLatency& c : r_.cacheline) c.one_way_ns = summarize(samples[static_cast<size_t>(c.distance)]);
    }

    void membarrier(int target) {
        const MembarrierResult m = measure_membarrier(r_.caller_cpu, target, effort_.ops(5'000), effort_);
        if (!m.spinning.call_ns.empty()) {
            // The target's lost time per IPI it received (per call when the CAL count is unknown).
            std::vector<double> lost = m.spinning.target_lost_ns;
            if (m.spinning.cal_per_call && *m.spinning.cal_per_call > 0) {
                for (double& v : lost) v /= *m.spinning.cal_per_call;
            }
            r_.membarrier_spinning =
                MembarrierFigure{summarize(m.spinning.call_ns), m.spinning.cal_per_call, summarize(lost)};
        }
        if (!m.sleeping.call_ns.empty()) {
            r_.membarrier_sleeping = MembarrierFigure{summarize(m.sleeping.call_ns), m.sleeping.cal_per_call, Spread{}};
        }
        if (!m.skipped.empty()) skip("membarrier IPI round trip", m.skipped);
        warn_if_not_sent("membarrier IPI round trip (target spinning)", m.spinning.cal_per_call, "CAL");
    }

    void dontneed(std::optional<int> sibling) {
        const DontneedRefault d = dontneed_refault(r_.caller_cpu, sibling, effort_.ops(10'000), effort_);
        r_.dontneed.push_back(DontneedFigure{sibling, summarize(d.cycle_ns), summarize(d.madvise_ns),
                                             summarize(d.refault_ns), summarize(d.read_back_ns), d.tlb_per_op,
                                             d.cal_per_op});
        if (sibling) warn_if_not_sent("madvise + refault with a second thread (shootdown)", d.tlb_per_op, "TLB");
    }

    ProbeResults& r_;
    const ProbeOptions& o_;
    Effort effort_;
};

}  // namespace

std::string utc_timestamp() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

ProbeResults run_probe(const ProbeOptions& options) {
    ProbeResults r;
    r.date = utc_timestamp();
    r.command = options.command;
    r.quick = options.quick;
    Prober(r, options).run();
    set_realtime(false);
    return r;
}

}  // namespace ipisim::probe
