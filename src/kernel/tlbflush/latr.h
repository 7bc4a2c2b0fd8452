// tlb_flush "latr": lazy TLB shootdown after LATR (Kumar et al., LATR: Lazy Translation
// Coherence, ASPLOS'18). The initiator records the invalidation and returns without an IPI;
// each target applies it at its next scheduler tick or context switch; the memory the flush
// protects is released only once every target applied it.
//
// The rules, and why they are safe (the checker's stale-translation rule, docs/checker.md:
// a use of a TLB entry filled before an unmap whose frame has been released is a violation):
//   1. Only unmaps are lazy: flush_tlb_mm_range(..., TlbFlushReason::unmap) from munmap and
//      madvise(MADV_DONTNEED), whose callers release the memory through Mm::tlb_release().
//      A permission downgrade (TlbFlushReason::protection: mprotect; the paper keeps such
//      changes synchronous, since the old permission must not be usable once the call
//      returns) falls back to the IPI shootdown (native_flush_tlb_multi). The model has no
//      mprotect path; the fallback is tested directly.
//   2. The initiator flushes itself at once (with IRQs off, as SCF_RUN_LOCAL does), and selects
//      the targets as the IPI path does: should_flush_tlb() (every CPU of the mask, lazy ones
//      included, for freed page tables). CPUs it skips cannot use a stale entry before they
//      flush: a lazy CPU makes no user access and catches up on tlb_gen when it switches back,
//      a CPU running another mm catches up on its ctxs[] generation at switch-in (as in Linux).
//   3. It writes a LATR state (a copy of the flush_tlb_info and a count of targets + 1, on one
//      line homed in its node) and queues it on every target: an atomic add on the target's
//      latr_pending line and a push onto its queue. The state's count keeps one reference for
//      the initiator until tlb_release() hands it the release.
//   4. A target applies its queued states at its next scheduler tick (aligned ticks every
//      1/HZ, the kernel's [kernel] hz; the tick's interrupt is modelled only when LATR work is
//      queued on that CPU, the model has no tick otherwise) or at the end of its next
//      switch_mm_irqs_off(), whichever comes first: flush_tlb_func() on the copy (so the
//      generation checks coalesce a tick's worth of states into one flush), then it drops the
//      state's count.
//   5. Whoever drops a count to 0 releases the memory (Mm::release_now: the checker's
//      pages_released, the folios freed, an unmapped range made reusable). Until then the
//      frames are not reusable and an unmapped range stays out of get_unmapped_area(), so a
//      stale entry can only reach the unmapped page itself, never memory reused for someone
//      else; with freed page tables every CPU that had the mm loaded, lazily or not, has left
//      it or flushed before the tables go.
// What it gives up (as the paper says of munmap): between the call's return and the targets'
// next tick a thread on a target can still read or write the unmapped (or MADV_DONTNEED) page
// through its stale entry; a program that does so has a use-after-unmap race, and the page's
// frame is not yet anyone else's. Memory is held up to one tick longer.
//   6. Each CPU has at most kLatrStates states in flight as initiator (the paper keeps a small
//      fixed array of LATR states per core): when all are in use, the flush falls back to the
//      IPI shootdown and is complete on return.
// Costs besides the modelled accesses: the cross-call layer's equivalents (kernel/costs.h [A]).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "hw/coherence/sim_var.h"
#include "kernel/mm/mm_types.h"
#include "kernel/tlbflush/tlb_flush_protocol.h"

namespace ipisim::kernel {

// The tick's LATR work arrives as an interrupt of its own vector on the target (0xf2 is unused
// by the kernel paths modelled here), labelled latr_tick.
inline constexpr uint32_t LATR_TICK_VECTOR = 0xf2;

// [A] states per CPU (range 16-256): a small per-core array, as in the paper; the value is not
// taken from it.
inline constexpr uint32_t kLatrStates = 64;

struct LatrStats {
    uint64_t lazy_flushes = 0;    // flushes that returned with states queued
    uint64_t ipi_fallbacks = 0;   // permission changes: IPI shootdown
    uint64_t full_fallbacks = 0;  // every state of the initiator in flight: IPI shootdown
    uint64_t states_queued = 0;   // (flush, target) pairs
    uint64_t applied_at_tick = 0;
    uint64_t applied_at_switch = 0;
    uint64_t ticks = 0;  // tick interrupts with LATR work
    uint64_t deferred_releases = 0;
};

class LatrFlush final : public TlbFlushProtocol {
public:
    void attach(mm::Mm& mm) override;
    sim::Task<> flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) override;
    [[nodiscard]] bool defers_release() const override { return true; }
    sim::Task<bool> defer_release(hw::Cpu& self, mm::TlbRelease& r) override;
    [[nodiscard]] bool hooks_context_switch() const override { return true; }
    sim::Task<> switch_mm_done(hw::Cpu& cpu) override;
    [[nodiscard]] const LatrStats* latr_stats() const override { return &stats_; }
    [[nodiscard]] const LatrStats& stats() const { return stats_; }
    // States queued on `cpu` and not yet applied.
    [[nodiscard]] size_t queued(hw::CpuId cpu) const { return pcpu_.at(cpu).queue.size(); }

private:
    struct State {
        mm::FlushTlbInfo info;          // the copy; info.line is `payload`
        hw::SimVar* payload = nullptr;  // the state's line: payload and count
        hw::SimVar* count = nullptr;
        hw::CpuId initiator = 0;
        bool has_release = false;
        mm::TlbRelease release;
    };
    struct PerCpu {
        hw::SimVar* pending = nullptr;  // latr_pending: number of queued states (own line)
        std::deque<State*> queue;
        std::vector<State*> free;  // this CPU's recycled states (as initiator)
        State* current = nullptr;  // its last lazy flush, until tlb_release() takes it
        uint32_t in_flight = 0;    // its states not yet applied everywhere
        bool tick_armed = false;
        bool applying = false;
    };

    State& new_state(hw::CpuId initiator);
    sim::Task<> drop(hw::Cpu& cpu, State& s);
    // Applies every queued state (IRQs off); at_tick: from the tick, else a context switch.
    sim::Task<> apply(hw::Cpu& cpu, bool at_tick);
    void arm_tick(hw::CpuId cpu);
    static void on_tick(void* obj, uint32_t cpu);

    std::vector<PerCpu> pcpu_;
    std::vector<std::unique_ptr<State>> states_;
    LatrStats stats_;
};

}  // namespace ipisim::kernel
