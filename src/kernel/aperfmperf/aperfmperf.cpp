#include "kernel/aperfmperf/aperfmperf.h"

#include <fmt/format.h>

#include "kernel/aperfmperf/msleep.h"

namespace ipisim::kernel {

using hw::Cpu;
using hw::CpuId;
using sim::Picos;

namespace {

// Instruction costs in core cycles, [A] path-length estimates (IPC ~1-2), not fitted.
// ktime_get(): TSC read + clocksource arithmetic.
constexpr uint64_t ktime_get_cycles = 40;
// arch_freq_prepare_all() entry: cpu_khz / X86_FEATURE_APERFMPERF checks, ktime_get().
constexpr uint64_t prepare_all_entry_cycles = 20 + ktime_get_cycles;
// for_each_online_cpu step + housekeeping_cpu().
constexpr uint64_t prepare_all_per_cpu_cycles = 15;
// zalloc_cpumask_var() + cpus_read_lock()/unlock() + free (the patch's extra work).
constexpr uint64_t prepare_all_many_setup_cycles = 150;
// aperfmperf_snapshot_cpu(): ktime_ms_delta() and the compares.
constexpr uint64_t snapshot_cpu_cycles = 10;
// aperfmperf_snapshot_khz() after the MSR reads: deltas, ktime_get(), div64_u64().
constexpr uint64_t snapshot_khz_cycles = 60 + ktime_get_cycles;

constexpr uint64_t kPsPerMs = 1'000'000'000ULL;

// ktime_ms_delta(now, then): s64 milliseconds, truncated; a sample taken after `now` (possible
// while a loop started earlier runs) is "in the future": a negative delta, i.e. fresh.
int64_t ktime_ms_delta(Picos now, Picos then) {
    if (then > now) return -static_cast<int64_t>((then - now).count() / kPsPerMs);
    return static_cast<int64_t>((now - then).count() / kPsPerMs);
}

}  // namespace

Aperfmperf::Aperfmperf(hw::Platform& platform, Smp& smp)
    : p_(platform),
      smp_(smp),
      mem_(platform.memory()),
      samples_(platform.nr_cpus()),
      housekeeping_(hw::CpuMask::all(platform.nr_cpus())) {
    const hw::Topology& topo = p_.topology();
    for (CpuId c = 0; c < p_.nr_cpus(); ++c) {
        // DEFINE_PER_CPU(struct aperfmperf_sample, samples): 40 bytes, one line.
        hw::CacheLine& line = mem_.new_line(fmt::format("aperfmperf_samples[{}]", c), topo.node_of(c));
        Sample& s = samples_[c];
        s.khz = &mem_.new_var(line);
        s.scfpending = &mem_.new_var(line);
        s.time = &mem_.new_var(line);
        s.aperf = &mem_.new_var(line);
        s.mperf = &mem_.new_var(line);
        s.dynticks = &mem_.new_aligned_var(fmt::format("rcu_data[{}].dynticks", c), topo.node_of(c));
    }
}

void Aperfmperf::set_housekeeping(CpuId cpu, bool on) {
    if (on) {
        housekeeping_.set(cpu);
    } else {
        housekeeping_.clear(cpu);
    }
}

Picos Aperfmperf::sample_time(CpuId cpu) const {
    return Picos(samples_.at(cpu).time->peek());
}
uint32_t Aperfmperf::sample_khz(CpuId cpu) const {
    return static_cast<uint32_t>(samples_.at(cpu).khz->peek());
}
bool Aperfmperf::scfpending(CpuId cpu) const {
    return samples_.at(cpu).scfpending->peek() != 0;
}

SmpCallFunc Aperfmperf::snapshot_func() {
    return [this](Cpu& cpu) { return aperfmperf_snapshot_khz(cpu); };
}

sim::Task<> Aperfmperf::aperfmperf_snapshot_khz(Cpu& cpu) {
    static const uint32_t label = hw::profile_label("aperfmperf_snapshot_khz");
    auto scope = cpu.function(label);
    const CpuId me = cpu.id();
    Sample& s = samples_[me];
    // local_irq_save(); rdmsrl(MSR_IA32_APERF); rdmsrl(MSR_IA32_MPERF); local_irq_restore().
    // Model: no frequency scaling, so both count core cycles and khz comes out as cpu_khz.
    cpu.local_irq_disable();
    co_await cpu.stall(cpu.costs().rdmsr);
    const uint64_t aperf = cpu.spec().clock.to_cycles(cpu.now()).count();
    co_await cpu.stall(cpu.costs().rdmsr);
    const uint64_t mperf = cpu.spec().clock.to_cycles(cpu.now()).count();
    co_await cpu.local_irq_enable();
    const uint64_t prev_aperf = co_await mem_.load(me, *s.aperf);
    const uint64_t prev_mperf = co_await mem_.load(me, *s.mperf);
    co_await cpu.compute_cycles(sim::Cycles(snapshot_khz_cycles));
    ++stats_.snapshots;
    const uint64_t aperf_delta = aperf - prev_aperf;
    const uint64_t mperf_delta = mperf - prev_mperf;
    // "There is no architectural guarantee that MPERF increments faster than we can read it."
    if (mperf_delta == 0) co_return;
    const uint64_t cpu_khz = cpu.spec().clock.khz();
    co_await mem_.store(me, *s.time, cpu.now().count());
    co_await mem_.store(me, *s.aperf, aperf);
    co_await mem_.store(me, *s.mperf, mperf);
    const auto khz = static_cast<uint64_t>(static_cast<unsigned __int128>(cpu_khz) * aperf_delta / mperf_delta);
    co_await mem_.store(me, *s.khz, khz);
    // atomic_set_release(&s->scfpending, 0)
    co_await mem_.store(me, *s.scfpending, 0);
}

sim::Task<bool> Aperfmperf::rcu_is_idle_cpu(Cpu& self, CpuId cpu) {
    co_await mem_.load(self.id(), *samples_[cpu].dynticks);
    co_return p_.cpu(cpu).in_idle();
}

sim::Task<bool> Aperfmperf::aperfmperf_snapshot_cpu(Cpu& self, CpuId cpu, Picos now, bool wait, hw::CpuMask* mask) {
    Sample& s = samples_[cpu];
    const uint64_t then = co_await mem_.load(self.id(), *s.time);
    co_await self.compute_cycles(sim::Cycles(snapshot_cpu_cycles));
    const int64_t time_delta = ktime_ms_delta(now, Picos(then));

    // Don't bother re-computing within the cache threshold time.
    if (time_delta < APERFMPERF_CACHE_THRESHOLD_MS) {
        ++stats_.skipped_fresh;
        co_return true;
    }
    const uint64_t pending = co_await mem_.xchg(self.id(), *s.scfpending, 1);
    if (pending == 0 || wait) {
        if (mask != nullptr) {
            mask->set(cpu);  // __cpumask_set_cpu()
        } else {
            ++(wait ? stats_.calls_sync : stats_.calls_async);
            co_await smp_.smp_call_function_single(self, cpu, snapshot_func(), wait);
        }
    } else {
        ++stats_.skipped_pending;
    }
    // Return false if the previous iteration was too long ago.
    const bool recent = time_delta <= APERFMPERF_STALE_THRESHOLD_MS;
    if (!recent) ++stats_.stale;
    co_return recent;
}

sim::Task<uint32_t> Aperfmperf::aperfmperf_get_khz(Cpu& self, CpuId cpu) {
    if (!housekeeping_.test(cpu)) co_return 0;
    const bool idle = co_await rcu_is_idle_cpu(self, cpu);
    if (idle) {
        ++stats_.skipped_idle;
        co_return 0;  // Idle CPUs are completely uninteresting.
    }
    co_await self.compute_cycles(sim::Cycles(ktime_get_cycles));
    co_await aperfmperf_snapshot_cpu(self, cpu, self.now(), true);
    const uint64_t khz = co_await mem_.load(self.id(), *samples_[cpu].khz);
    co_return static_cast<uint32_t>(khz);
}

sim::Task<> Aperfmperf::arch_freq_prepare_all(Cpu& self) {
    static const uint32_t label = hw::profile_label("arch_freq_prepare_all");
    auto scope = self.function(label, hw::Activity::kernel);
    co_await self.compute_cycles(sim::Cycles(prepare_all_entry_cycles));
    const Picos now = self.now();  // ktime_get()
    if (variant_ == FreqPrepareVariant::many) {
        co_await prepare_all_many(self, now);
    } else {
        co_await prepare_all_serial_single(self, now);
    }
}

sim::Task<> Aperfmperf::prepare_all_serial_single(Cpu& self, Picos now) {
    bool wait = false;
    for (CpuId cpu : smp_.cpu_online_mask().to_vector()) {
        co_await self.compute_cycles(sim::Cycles(prepare_all_per_cpu_cycles));
        if (!housekeeping_.test(cpu)) continue;
        const bool idle = co_await rcu_is_idle_cpu(self, cpu);
        if (idle) {
            ++stats_.skipped_idle;
            continue;  // Idle CPUs are completely uninteresting.
        }
        const bool recent = co_await aperfmperf_snapshot_cpu(self, cpu, now, false);
        if (!recent) wait = true;
    }
    if (wait) {
        ++stats_.msleeps;
        const Picos t0 = self.now();
        co_await msleep(self, smp_, APERFMPERF_REFRESH_DELAY_MS, hz_);
        stats_.msleep_time += self.now() - t0;
    }
}

sim::Task<> Aperfmperf::prepare_all_many(Cpu& self, Picos now) {
    co_await self.compute_cycles(sim::Cycles(prepare_all_many_setup_cycles));
    hw::CpuMask mask(p_.nr_cpus());  // zalloc_cpumask_var()
    bool wait = false;
    for (CpuId cpu : smp_.cpu_online_mask().to_vector()) {
        co_await self.compute_cycles(sim::Cycles(prepare_all_per_cpu_cycles));
        if (!housekeeping_.test(cpu)) continue;
        const bool idle = co_await rcu_is_idle_cpu(self, cpu);
        if (idle) {
            ++stats_.skipped_idle;
            continue;
        }
        const bool recent = co_await aperfmperf_snapshot_cpu(self, cpu, now, false, &mask);
        if (!recent) wait = true;
    }
    // preempt_disable(); smp_call_function_many(mask, ...); preempt_enable()
    ++stats_.calls_many;
    stats_.many_targets += mask.weight();
    co_await smp_.smp_call_function_many(self, mask, snapshot_func(), wait);
}

}  // namespace ipisim::kernel
