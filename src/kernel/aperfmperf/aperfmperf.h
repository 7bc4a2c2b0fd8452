// arch/x86/kernel/cpu/aperfmperf.c before v5.19 (docs/mechanisms.md §6.1): the "cpu MHz" of
// /proc/cpuinfo from on-demand APERF/MPERF snapshots taken on each CPU by cross-calls.
//
// Per CPU, a sample {khz, scfpending, time, aperf, mperf} on one simulated cache line in the
// CPU's per-CPU area: the target writes it in aperfmperf_snapshot_khz(), the reader loads
// `time` and atomically exchanges `scfpending` from its own CPU, so every refresh moves the
// line between the two. rcu_is_idle_cpu() loads the target's rcu_data.dynticks line; its value
// is whether that CPU sits in its idle loop (hw::Cpu::in_idle()).
//
// arch_freq_prepare_all() (cpuinfo_open) comes in two variants:
//   serial_single  the pre-patch loop: one async smp_call_function_single() per stale CPU, all
//                  through this CPU's single csd_data (csd_lock spins until the previous
//                  target consumed it), then msleep(10) if any sample was older than 1 s;
//   many           Eric Dumazet's patch (seed 004): collect the stale CPUs in a mask and call
//                  smp_call_function_many(mask, snapshot, wait), waiting (instead of sleeping)
//                  when a sample was older than 1 s.
// All functions are awaited by the process running on `self`.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/cpumask.h"
#include "hw/platform.h"
#include "kernel/smp/smp.h"
#include "sim/task.h"

namespace ipisim::kernel {

inline constexpr int64_t APERFMPERF_CACHE_THRESHOLD_MS = 10;
inline constexpr int64_t APERFMPERF_REFRESH_DELAY_MS = 10;
inline constexpr int64_t APERFMPERF_STALE_THRESHOLD_MS = 1000;

enum class FreqPrepareVariant : uint8_t {
    serial_single,  // for_each_online_cpu: smp_call_function_single(cpu, ..., wait=0)
    many,           // one smp_call_function_many(mask, ..., wait)
};

struct AperfmperfStats {
    uint64_t snapshots = 0;        // aperfmperf_snapshot_khz() runs
    uint64_t calls_async = 0;      // async single calls (serial_single prepare_all)
    uint64_t calls_sync = 0;       // sync single calls (aperfmperf_get_khz)
    uint64_t calls_many = 0;       // smp_call_function_many() calls (many prepare_all)
    uint64_t many_targets = 0;     // CPUs in those masks
    uint64_t skipped_idle = 0;     // RCU-idle CPUs skipped
    uint64_t skipped_fresh = 0;    // samples younger than the cache threshold
    uint64_t skipped_pending = 0;  // stale, but an async snapshot is already pending
    uint64_t stale = 0;            // samples older than the stale threshold
    uint64_t msleeps = 0;
    sim::Picos msleep_time;  // spent in msleep(APERFMPERF_REFRESH_DELAY_MS)
};

class Aperfmperf {
public:
    Aperfmperf(hw::Platform& platform, Smp& smp);
    Aperfmperf(const Aperfmperf&) = delete;
    Aperfmperf& operator=(const Aperfmperf&) = delete;

    void set_variant(FreqPrepareVariant v) { variant_ = v; }
    [[nodiscard]] FreqPrepareVariant variant() const { return variant_; }
    // housekeeping_cpu(cpu, HK_FLAG_MISC); every CPU by default (no isolcpus/nohz_full).
    void set_housekeeping(hw::CpuId cpu, bool on);
    // Kernel HZ for msleep()'s jiffies rounding (default 1000).
    void set_hz(uint32_t hz) { hz_ = hz; }

    // cpuinfo_open() -> arch_freq_prepare_all().
    sim::Task<> arch_freq_prepare_all(hw::Cpu& self);
    // show_cpuinfo() -> aperfmperf_get_khz(cpu): 0 for RCU-idle CPUs (no IPI).
    sim::Task<uint32_t> aperfmperf_get_khz(hw::Cpu& self, hw::CpuId cpu);
    // Refreshes cpu's sample if older than the cache threshold (into `mask` when given, else
    // by smp_call_function_single); false if it was older than the stale threshold.
    sim::Task<bool> aperfmperf_snapshot_cpu(hw::Cpu& self, hw::CpuId cpu, sim::Picos now, bool wait,
                                            hw::CpuMask* mask = nullptr);
    // The cross-call callback, run on the sampled CPU.
    sim::Task<> aperfmperf_snapshot_khz(hw::Cpu& cpu);
    // Whether `cpu` is in an RCU extended quiescent state (its idle loop); reads its dynticks.
    sim::Task<bool> rcu_is_idle_cpu(hw::Cpu& self, hw::CpuId cpu);

    // --- inspection (tests, metrics): values without simulated accesses ---
    [[nodiscard]] sim::Picos sample_time(hw::CpuId cpu) const;
    [[nodiscard]] uint32_t sample_khz(hw::CpuId cpu) const;
    [[nodiscard]] bool scfpending(hw::CpuId cpu) const;
    [[nodiscard]] const AperfmperfStats& stats() const { return stats_; }

private:
    struct Sample {
        hw::SimVar* khz = nullptr;
        hw::SimVar* scfpending = nullptr;
        hw::SimVar* time = nullptr;  // ktime, ps
        hw::SimVar* aperf = nullptr;
        hw::SimVar* mperf = nullptr;
        hw::SimVar* dynticks = nullptr;  // rcu_data.dynticks (own line)
    };

    sim::Task<> prepare_all_serial_single(hw::Cpu& self, sim::Picos now);
    sim::Task<> prepare_all_many(hw::Cpu& self, sim::Picos now);
    SmpCallFunc snapshot_func();

    hw::Platform& p_;
    Smp& smp_;
    hw::Memory& mem_;
    std::vector<Sample> samples_;
    hw::CpuMask housekeeping_;
    FreqPrepareVariant variant_ = FreqPrepareVariant::serial_single;
    uint32_t hz_ = 1000;
    AperfmperfStats stats_;
};

}  // namespace ipisim::kernel
