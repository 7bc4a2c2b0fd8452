// tlb_flush "latr" (kernel/tlbflush/latr.cpp): unmaps return without IPIs, targets apply the
// flush at their next tick or context switch, the memory is released once all applied, and
// permission changes go by IPI. Exact times on toy8 (machines/toy8.toml: 1 GHz, CPUs 0-3 in
// package 0 and 4-7 in package 1; see numa_multicast_test.cpp) with the default HZ = 250 (a
// 4 ms jiffy: the ticks fall at 4 ms, 8 ms, ...).
#include <gtest/gtest.h>

#include <optional>

#include "check/check_stress.h"
#include "kernel/mm/mm.h"
#include "kernel/tlbflush/latr.h"
#include "mm_world.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SHIFT;
using kernel::mm::PAGE_SIZE;
using kernel::mm::TlbFlushReason;
using mmtest::kVa;
using mmtest::MmWorld;
using mmtest::start_cpus;
using sim::Picos;

namespace {

const kernel::LatrStats& stats(MmWorld& w) {
    return dynamic_cast<kernel::LatrFlush&>(w.mm->protocol()).stats();
}

struct Lazy {
    Picos took;                      // flush_tlb_mm_range + tlb_release on CPU 0
    bool held_after_return = false;  // CPU 4 still caches kVa when the call returns
    uint64_t irqs_after_return = 0;  // CPU 4's interrupts by then
    std::optional<Picos> released;   // when the release ran
    hw::CpuId released_on = 99;
};

// CPU 4 runs the mm (busy for `busy`, then, if `switch_at` is set, switches to another mm at
// that time); CPU 0 flushes kVa at 10 us and releases it through tlb_release().
Lazy flush_and_release(MmWorld& w, MmStruct& mm, TlbFlushReason reason, Picos busy,
                       std::optional<Picos> switch_at = std::nullopt) {
    MmStruct& other = w.mm->mm_alloc(1);
    w.k->run_on(4, [&w, &mm, &other, busy, switch_at](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        w.mm->tlb(4).fill(w.mm->loaded_pcid(4), kVa, cpu.now());
        if (switch_at) {
            co_await cpu.compute(*switch_at - cpu.now());
            co_await w.mm->switch_mm_irqs_off(cpu, other);
        }
        co_await cpu.compute(busy);
    });
    Lazy out;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_us - cpu.now());
        const Picos t0 = cpu.now();
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, false, reason);
        kernel::mm::TlbRelease r;
        r.mm = &mm;
        r.start = kVa;
        r.end = kVa + PAGE_SIZE;
        r.zapper = 0;
        r.released = [&out](Cpu& c) {
            out.released = c.now();
            out.released_on = c.id();
        };
        co_await w.mm->tlb_release(cpu, std::move(r));
        out.took = cpu.now() - t0;
        out.held_after_return = w.mm->tlb(4).find(w.mm->loaded_pcid(4), kVa) != nullptr;
        out.irqs_after_return = w.cpu(4).irqs_taken();
    });
    w.k->boot();
    w.eng.run_until(20_ms);
    return out;
}

}  // namespace

TEST(Latr, an_unmap_flush_returns_without_an_ipi_and_the_target_applies_it_at_its_next_tick) {
    MmWorld w("toy8", "latr");
    MmStruct& mm = w.mm->mm_alloc(0);
    const Lazy l = flush_and_release(w, mm, TlbFlushReason::unmap, 10_ms);
    EXPECT_TRUE(l.held_after_return);
    EXPECT_EQ(l.irqs_after_return, 0u);
    // No IPI and no wait: flush_tlb_mm_range's path, CPU 0's own flush, should_flush_tlb(4)
    // (CPU 4's two cpu_tlbstate lines, cross package, loaded together: one transfer's time),
    // the state's line and CPU 4's latr_pending line (a cold miss to its remote home), and
    // tlb_release's hand-over.
    EXPECT_EQ(l.took, 1'449_ns);
    // The tick at 4 ms: CPU 4 applies the state and, the last to drop its count, releases.
    ASSERT_TRUE(l.released.has_value());
    EXPECT_EQ(l.released_on, 4u);
    // 4 ms + IRQ entry, the xchg of latr_pending (CPU 0 wrote it), flush_tlb_func on the
    // state (its line and tlb_gen: cross package), INVLPG, the count's decrement, the release.
    EXPECT_EQ(*l.released, 4_ms + 1'676_ns);
    EXPECT_EQ(w.mm->tlb(4).find(w.mm->loaded_pcid(4), kVa), nullptr);
    EXPECT_EQ(w.cpu(4).irqs_taken(), 1u);  // the tick
    EXPECT_EQ(stats(w).applied_at_tick, 1u);
    EXPECT_EQ(stats(w).deferred_releases, 1u);
}

TEST(Latr, with_skew_tick_the_target_applies_it_at_its_own_offset_tick) {
    // skew_tick=1 on toy8: CPU c ticks (4 ms / 2) / 8 * c after each jiffy boundary, so CPU 4
    // at 1 ms, 5 ms, ... The same chain as above, from CPU 4's first tick after the flush.
    kernel::KernelConfig config = mmtest::with_protocol("latr");
    config.skew_tick = true;
    MmWorld w("toy8", config);
    MmStruct& mm = w.mm->mm_alloc(0);
    const Lazy l = flush_and_release(w, mm, TlbFlushReason::unmap, 10_ms);
    EXPECT_EQ(l.took, 1'449_ns);
    ASSERT_TRUE(l.released.has_value());
    EXPECT_EQ(l.released_on, 4u);
    EXPECT_EQ(*l.released, 1_ms + 1'676_ns);
    EXPECT_EQ(stats(w).applied_at_tick, 1u);
    EXPECT_EQ(stats(w).ticks, 1u);
}

TEST(Latr, a_context_switch_applies_a_queued_state_before_the_tick) {
    MmWorld w("toy8", "latr");
    MmStruct& mm = w.mm->mm_alloc(0);
    const Lazy l = flush_and_release(w, mm, TlbFlushReason::unmap, 10_ms, 1_ms);
    ASSERT_TRUE(l.released.has_value());
    EXPECT_EQ(l.released_on, 4u);
    EXPECT_LT(*l.released, 1_ms + 5_us);
    EXPECT_GT(*l.released, 1_ms);
    EXPECT_EQ(stats(w).applied_at_switch, 1u);
    EXPECT_EQ(stats(w).applied_at_tick, 0u);
    // flush_tlb_func found CPU 4 running the other mm: it left mm_cpumask (no flush needed
    // until it switches back, when its ctxs[] generation is behind).
    EXPECT_EQ(mm.cpumask[0]->peek() >> 4 & 1, 0u);
}

TEST(Latr, a_permission_change_falls_back_to_the_ipi_shootdown) {
    MmWorld w("toy8", "latr");
    MmStruct& mm = w.mm->mm_alloc(0);
    const Lazy l = flush_and_release(w, mm, TlbFlushReason::protection, 10_ms);
    EXPECT_FALSE(l.held_after_return);
    EXPECT_EQ(l.irqs_after_return, 1u);
    ASSERT_TRUE(l.released.has_value());
    EXPECT_EQ(l.released_on, 0u);  // at once, by the caller
    EXPECT_EQ(stats(w).ipi_fallbacks, 1u);
    EXPECT_EQ(stats(w).lazy_flushes, 0u);
}

TEST(Latr, an_unmapped_range_is_not_reused_and_its_frames_not_freed_until_every_target_applied) {
    MmWorld w("toy8", "latr");
    MmStruct& mm = w.mm->mm_alloc(0);
    uint64_t first = 0;
    uint64_t during = 0;
    uint64_t after = 0;
    uint64_t freed_during = 0;
    w.k->run_on(4, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_ms);
    });
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        first = co_await w.mm->vm_mmap(cpu, mm, 2 * PAGE_SIZE);
        co_await w.mm->user_access(cpu, mm, first, true);
        co_await cpu.compute(10_us);
        co_await w.mm->vm_munmap(cpu, mm, first, 2 * PAGE_SIZE);
        freed_during = w.mm->stats().pages_freed;
        during = co_await w.mm->vm_mmap(cpu, mm, 2 * PAGE_SIZE);
        co_await w.mm->vm_munmap(cpu, mm, during, 2 * PAGE_SIZE);
        co_await cpu.compute(5_ms - cpu.now());  // after CPU 4's tick at 4 ms
        after = co_await w.mm->vm_mmap(cpu, mm, 2 * PAGE_SIZE);
    });
    w.k->boot();
    w.eng.run_until(20_ms);
    EXPECT_EQ(freed_during, 0u);               // the written page waits for CPU 4
    EXPECT_EQ(during, first - 2 * PAGE_SIZE);  // below the range the lazy flush holds
    EXPECT_EQ(after, first);                   // reusable once CPU 4 applied it
    EXPECT_EQ(w.mm->stats().pages_freed, 1u);
    EXPECT_EQ(stats(w).deferred_releases, 1u);  // the second munmap had nothing to flush
    EXPECT_TRUE(mm.lazy_unmapped.empty());
}

// Regression (found by `ipisim check --protocol latr`, toy4 seed 3): a second madvise of a page
// whose first madvise's release still waited for a target cleared no PTE and freed nothing, but
// told the checker the page was released; the target's stale entry then counted as a use of a
// released page. A release that cleared nothing and freed no tables releases no frame.
TEST(Latr, a_madvise_that_clears_nothing_does_not_release_a_page_a_lazy_flush_still_holds) {
    check::StressSpec spec;
    spec.protocol = "latr";
    spec.machine = ipisim::test::load_test_machine("toy4");
    spec.seed = 3;
    const check::StressResult r = check::run_check_stress(spec);
    EXPECT_EQ(r.total_violations, 0u) << (r.violations.empty() ? "" : r.violations.front().diagnosis);
    EXPECT_EQ(r.unfinished, 0u);
}
