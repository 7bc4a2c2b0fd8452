// TLB shootdown scenarios (arch/x86/mm/tlb.c with the `ipi` protocol) on toy machines.
//
// toy4 (machines/toy4.toml): 1 GHz (1 cycle = 1 ns); CPUs 0,1 are cores 0,1 and CPUs 2,3
// their SMT siblings (smt_last), all in one L3; l1_hit 1 ns, SMT transfer 10 ns, same-L3
// transfer 50 ns, memory 100 ns, no line occupancy; IRQ entry 200 + EOI 50 + exit 100 ns;
// xAPIC MMIO: ICR read 50, ICR2 + ICR writes 50 each, busy 200 ns + 50 per IPI in flight;
// fabric 500 ns (+ accept 20 ns); INVLPG 100 ns, CR3 write 100 ns, page walk 10 ns.
#include <gtest/gtest.h>

#include "kernel/costs.h"
#include "kernel/mm/mm_costs.h"
#include "mm_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SHIFT;
using kernel::mm::PAGE_SIZE;
using mmtest::flush_page;
using mmtest::kVa;
using mmtest::MmWorld;
using mmtest::start_cpus;
using sim::Picos;

namespace {}  // namespace

TEST(Tlbflush, a_one_page_shootdown_to_one_busy_cpu_takes_the_sum_of_its_steps) {
    MmWorld w("toy4");
    MmStruct& mm = w.mm->mm_alloc(0);
    start_cpus(w, mm, {1}, 100_us);
    Picos took;
    Picos second;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_us);  // CPU 1 is in the mm and busy by now
        Picos t0 = cpu.now();
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, false);
        took = cpu.now() - t0;
        co_await cpu.compute(10_us);
        t0 = cpu.now();
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, false);
        second = cpu.now() - t0;
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(w.mm->flush_stats().remote_flushes, 2u);
    EXPECT_EQ(w.mm->flush_stats().partial, 4u);  // both CPUs, twice
    EXPECT_EQ(w.k->smp().stats().ipis_single, 2u);
    EXPECT_EQ(w.cpu(1).irqs_taken(), 2u);
    // The second (warm) shootdown, from the call on CPU 0, in ns. Sender (CPU 0):
    //     80  flush_tlb_mm_range path
    //  +  50  atomic64_inc_return(tlb_gen): upgrade, CPU 1 read it in its last handler
    //  +  50  store flush_tlb_info: upgrade, CPU 1 read it too                     -> 180
    //  +   2  mm_cpumask and next_trim_cpumask loads: hits                           -> 182
    //  +  80  smp_call_function_many_cond set-up
    //  +  11  should_flush_tlb(self): 10 + own loaded_mm and is_lazy, hits issued together
    //                                                                                 -> 273
    //  +  20  per-target loop; + 10 should_flush_tlb(1)
    //  +  50  CPU 1's loaded_mm (its line was written by CPU 1's ctxs[].tlb_gen store),
    //         with CPU 1's is_lazy (unchanged: a hit) issued beside it                -> 353
    //  +   1  csd_lock_wait load (hit: the sender re-fetched it ending the last wait)
    //  +  50  csd_lock store (upgrade); + 1 func store (hit)
    //  +  50  llist_add: fetch_add on CPU 1's queue head (CPU 1 owns it after its xchg)
    //  +   1  CPU 1's idle thread flags (hit): not polling
    //  + 150  xAPIC: wait-ICR-idle one read 50, ICR2 50, ICR 50: the IPI leaves at     606
    //  Local flush_tlb_func meanwhile: 40 + 3 hits + INVLPG 100 + 1 -> 750; then spin.
    // Target (CPU 1), the IPI delivered at 606 + 500 = 1106:
    //  + 250  IRQ entry 200 + EOI 50; + 50 xchg of the queue head (CPU 0 owns it)
    //  +  85  flush-queue set-up 60 + 25 per node; + 50 CSD flags and func, one line,
    //         issued together                                                         -> 1541
    //  +  40  flush_tlb_func; + 50 the sender's flush_tlb_info, with the loaded_mm,
    //         loaded_mm_asid and is_lazy hits issued beside it; + 1 ctxs[].tlb_gen hit -> 1632
    //  +  50  mm->context.tlb_gen (CPU 0 owns it after its inc)                      -> 1682
    //  + 100  INVLPG (new_tlb_gen == local + 1 == mm_gen: partial)
    //  +  50  ctxs[asid].tlb_gen store (upgrade: CPU 0 shares the line)               -> 1832
    //  +  50  csd_unlock store (upgrade); the sender's spin wakes at 1882
    //  +  50  the sender's re-fetch of the CSD line                                   = 1932
    EXPECT_EQ(second, 1932_ns);
    // The first shootdown also pays cold misses.
    EXPECT_GT(took, second);
}

TEST(Tlbflush, concurrent_flushes_coalesce_through_the_generation_check) {
    MmWorld w("toy4");
    MmStruct& mm = w.mm->mm_alloc(0);
    // CPU 2 runs with IRQs off until both requests are queued on it, so one interrupt
    // carries both. Its first handler finds mm->tlb_gen two ahead of its own generation (not
    // local + 1): a full flush to the latest generation; the second returns at the check.
    w.k->run_on(2, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        w.mm->tlb(2).fill(w.mm->loaded_pcid(2), kVa, cpu.now());
        cpu.local_irq_disable();
        co_await cpu.compute(30_us);
        co_await cpu.local_irq_enable();
        co_await cpu.compute(100_us);
    });
    int done = 0;
    for (hw::CpuId c : {0u, 1u}) {
        w.k->run_on(c, [&, c](Cpu& cpu) -> sim::Task<> {
            co_await w.mm->switch_mm_irqs_off(cpu, mm);
            co_await cpu.compute(10_us);
            const uint64_t va = kVa + c * PAGE_SIZE;
            co_await w.mm->flush_tlb_mm_range(cpu, mm, va, va + PAGE_SIZE, PAGE_SHIFT, false);
            if (++done == 2) w.eng.stop();
        });
    }
    w.k->boot();
    w.eng.run();
    ASSERT_EQ(done, 2);
    const auto& st = w.mm->flush_stats();
    EXPECT_EQ(mm.tlb_gen->peek(), 2u);
    EXPECT_EQ(w.cpu(2).irqs_taken(), 1u);  // one IPI carried both CSDs
    EXPECT_EQ(st.flush_tlb_func, 6u);      // 2 local + CPU 0 <-> CPU 1 + 2 on CPU 2
    EXPECT_EQ(w.k->smp().stats().queued_behind, 1u);
    EXPECT_EQ(st.coalesced, 1u);
    EXPECT_EQ(st.full, 1u);
    // Every CPU ends at generation 2 and without the flushed translation.
    for (hw::CpuId c : {0u, 1u, 2u}) {
        const auto asid = w.mm->tlbstate(c).loaded_mm_asid->peek();
        EXPECT_EQ(w.mm->tlbstate(c).ctxs[asid].tlb_gen->peek(), 2u) << "cpu " << c;
        EXPECT_EQ(w.mm->tlb(c).find(w.mm->loaded_pcid(c), kVa), nullptr) << "cpu " << c;
    }
}

TEST(Tlbflush, lazy_cpus_are_skipped_unless_tables_were_freed) {
    MmWorld w("toy4");
    MmStruct& mm = w.mm->mm_alloc(0);
    start_cpus(w, mm, {1}, 100_us);
    start_cpus(w, mm, {2}, 0_us, {2});  // CPU 2 ran the mm, then went idle: lazy
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_us);
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, false);
        EXPECT_EQ(w.cpu(1).irqs_taken(), 1u);
        EXPECT_EQ(w.cpu(2).irqs_taken(), 0u);  // should_flush_tlb: lazy -> false
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, true);
        EXPECT_EQ(w.cpu(1).irqs_taken(), 2u);
        EXPECT_EQ(w.cpu(2).irqs_taken(), 1u);  // freed tables: on_each_cpu_mask, lazy too
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    // The lazy CPU left the user mm (switch_mm_irqs_off(init_mm)) instead of flushing.
    EXPECT_EQ(w.mm->loaded_mm(2), w.mm->init_mm().id);
    EXPECT_EQ(w.mm->flush_stats().lazy_switches, 1u);
    // It is still in mm_cpumask (lazily): the next flush that reaches it clears it.
    EXPECT_NE(mm.cpumask[0]->peek() & (1U << 2), 0u);
}

TEST(Tlbflush, a_tlb_entry_filled_before_the_flush_is_gone_from_every_target_after_it) {
    MmWorld w("toy8");
    MmStruct& mm = w.mm->mm_alloc(0);
    start_cpus(w, mm, {1, 2, 3, 4, 5, 6, 7}, 100_us);
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        w.mm->tlb(0).fill(w.mm->loaded_pcid(0), kVa, cpu.now());
        w.mm->tlb(0).fill(w.mm->loaded_pcid(0), kVa + PAGE_SIZE, cpu.now());  // not flushed
        co_await cpu.compute(10_us);
        for (hw::CpuId c = 0; c < 8; ++c) EXPECT_NE(w.mm->tlb(c).find(w.mm->loaded_pcid(c), kVa), nullptr);
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, false);
        for (hw::CpuId c = 0; c < 8; ++c) {
            EXPECT_EQ(w.mm->tlb(c).find(w.mm->loaded_pcid(c), kVa), nullptr) << "cpu " << c;
        }
        EXPECT_NE(w.mm->tlb(0).find(w.mm->loaded_pcid(0), kVa + PAGE_SIZE), nullptr);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(w.mm->flush_stats().partial, 8u);
    EXPECT_EQ(w.k->smp().stats().ipis_many, 7u);
}

TEST(Tlbflush, munmaps_freed_tables_flush_reaches_lazy_cpus) {
    MmWorld w("toy4");
    MmStruct& mm = w.mm->mm_alloc(0);
    start_cpus(w, mm, {1}, 0_us, {1});  // lazy
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_us);
        const uint64_t addr = co_await w.mm->vm_mmap(cpu, mm, 1U << 20);
        co_await w.mm->user_access(cpu, mm, addr, true);
        co_await w.mm->user_access(cpu, mm, addr + PAGE_SIZE, false);
        co_await w.mm->do_madvise_dontneed(cpu, mm, addr, PAGE_SIZE);
        EXPECT_EQ(w.cpu(1).irqs_taken(), 0u);  // lazy: skipped by the 1-page flush
        co_await w.mm->vm_munmap(cpu, mm, addr, 1U << 20);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(w.cpu(1).irqs_taken(), 1u);
    EXPECT_EQ(w.mm->loaded_mm(1), w.mm->init_mm().id);
    EXPECT_EQ(w.mm->flush_stats().full_range, 1u);
    EXPECT_EQ(w.mm->stats().stale_tlb_hits, 0u);
}

TEST(Tlbflush, a_cpu_left_in_mm_cpumask_clears_itself_when_a_flush_reaches_it) {
    MmWorld w("toy4");
    MmStruct& mm = w.mm->mm_alloc(0);
    MmStruct& other = w.mm->mm_alloc(0);
    w.k->run_on(3, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await w.mm->switch_mm_irqs_off(cpu, other);  // mm_cpumask(mm) keeps CPU 3
        co_await cpu.compute(100_us);
    });
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_us);
        EXPECT_NE(mm.cpumask[0]->peek() & (1U << 3), 0u);
        // Not the loaded mm and no trim due: should_flush_tlb skips it.
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, false);
        EXPECT_EQ(w.cpu(3).irqs_taken(), 0u);
        // Freed tables reach it; flush_tlb_func finds another mm loaded and clears the bit.
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, true);
        EXPECT_EQ(w.cpu(3).irqs_taken(), 1u);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(mm.cpumask[0]->peek() & (1U << 3), 0u);
    EXPECT_EQ(w.mm->flush_stats().stale_cpumask, 1u);
}
