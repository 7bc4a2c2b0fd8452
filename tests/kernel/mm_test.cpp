// kernel/mm: context switches, lazy TLB, faults, LRU batches, madvise and munmap on toy4
// (1 GHz: 1 cycle = 1 ns).
#include <gtest/gtest.h>

#include "kernel/mm/mm_costs.h"
#include "mm_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SIZE;
using mmtest::MmWorld;

TEST(Mm, switching_in_sets_the_cpu_in_mm_cpumask_and_switching_out_leaves_it_there) {
    MmWorld w("toy4");
    MmStruct& a = w.mm->mm_alloc(0);
    MmStruct& b = w.mm->mm_alloc(0);
    w.k->run_on(1, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, a);
        EXPECT_EQ(w.mm->loaded_mm(1), a.id);
        EXPECT_EQ(w.mm->loaded_pcid(1), 2u);  // ASID 1 (0 is init_mm's): kern_pcid = 2
        co_await w.mm->switch_mm_irqs_off(cpu, b);
        EXPECT_EQ(w.mm->loaded_pcid(1), 3u);
        co_await w.mm->switch_mm_irqs_off(cpu, a);  // ASID 1 still holds a's context: no flush
        EXPECT_EQ(w.mm->loaded_pcid(1), 2u);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(a.cpumask[0]->peek(), 1U << 1);
    EXPECT_EQ(b.cpumask[0]->peek(), 1U << 1);  // lazily kept after switching away
}

TEST(Mm, before_6_14_switching_away_clears_the_cpu_from_the_previous_mms_cpumask) {
    // [kernel] lazy_mm_cpumask = false (the default before 6.14): switch_mm_irqs_off stops
    // remote flushes for the previous mm at once, and sets the next mm's bit every time.
    kernel::KernelConfig config;
    config.lazy_mm_cpumask = false;
    MmWorld w(config);
    MmStruct& a = w.mm->mm_alloc(0);
    MmStruct& b = w.mm->mm_alloc(0);
    uint64_t a_while_on_b = 0;
    w.k->run_on(1, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, a);
        co_await w.mm->switch_mm_irqs_off(cpu, b);
        a_while_on_b = a.cpumask[0]->peek();
        co_await w.mm->switch_mm_irqs_off(cpu, a);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(a_while_on_b, 0U);
    EXPECT_EQ(a.cpumask[0]->peek(), 1U << 1);
    EXPECT_EQ(b.cpumask[0]->peek(), 0U);
}

TEST(Mm, returning_from_lazy_mode_flushes_only_if_a_flush_was_skipped) {
    MmWorld w("toy4");
    MmStruct& a = w.mm->mm_alloc(0);
    w.k->run_on(1, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, a);
        w.mm->tlb(1).fill(w.mm->loaded_pcid(1), 0x1000, cpu.now());
        co_await w.mm->enter_lazy_tlb(cpu);
        co_await w.mm->switch_mm_irqs_off(cpu, a);  // nothing skipped: the entry survives
        EXPECT_NE(w.mm->tlb(1).find(w.mm->loaded_pcid(1), 0x1000), nullptr);
        co_await w.mm->enter_lazy_tlb(cpu);
        a.tlb_gen->poke(a.tlb_gen->peek() + 1);  // a flush skipped this lazy CPU
        co_await w.mm->switch_mm_irqs_off(cpu, a);
        EXPECT_EQ(w.mm->tlb(1).find(w.mm->loaded_pcid(1), 0x1000), nullptr);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
}

TEST(Mm, a_write_fault_maps_a_new_page_and_madvise_frees_it_after_the_flush) {
    MmWorld w("toy4");
    MmStruct& m = w.mm->mm_alloc(0);
    w.mm->set_madvise_lru_add_drain(true);
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, m);
        const uint64_t addr = co_await w.mm->vm_mmap(cpu, m, 1U << 20);
        co_await w.mm->user_access(cpu, m, addr, true);
        EXPECT_NE(w.mm->tlb(0).find(w.mm->loaded_pcid(0), addr), nullptr);
        EXPECT_EQ(w.mm->lru().batch_size(0), 1u);
        co_await w.mm->do_madvise_dontneed(cpu, m, addr, PAGE_SIZE);
        EXPECT_EQ(w.mm->tlb(0).find(w.mm->loaded_pcid(0), addr), nullptr);
        EXPECT_EQ(w.mm->lru().batch_size(0), 0u);         // drained, then freed from the LRU
        co_await w.mm->user_access(cpu, m, addr, false);  // the zero page
        EXPECT_EQ(m.ptes.at(addr >> 12), &w.mm->zero_folio());
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(w.mm->stats().faults, 2u);
    EXPECT_EQ(w.mm->stats().pages_allocated, 1u);
    EXPECT_EQ(w.mm->stats().pages_freed, 1u);
    EXPECT_EQ(w.mm->lru().stats().lock_rounds, 2u);  // drain (add) + release (delete)
    EXPECT_EQ(w.mm->flush_stats().local_flushes, 1u);
    EXPECT_EQ(w.mm->flush_stats().partial, 1u);
}

namespace {

// Without the drain, `n` folios written and zapped one by one (madvise after each) stay in the
// CPU's batch until the n-th fills it; then one lock round adds them all and one releases the
// zapped ones.
void batch_fills_at(kernel::KernelConfig config, uint32_t n) {
    config.tlb_flush = "ipi";
    MmWorld w(config);
    ASSERT_EQ(w.mm->lru().batch_capacity(), n);
    MmStruct& m = w.mm->mm_alloc(0);
    w.mm->set_madvise_lru_add_drain(false);
    bool done = false;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, m);
        const uint64_t addr = co_await w.mm->vm_mmap(cpu, m, 1U << 20);
        for (uint64_t i = 0; i + 1 < n; ++i) {
            co_await w.mm->user_access(cpu, m, addr + i * PAGE_SIZE, true);
            co_await w.mm->do_madvise_dontneed(cpu, m, addr + i * PAGE_SIZE, PAGE_SIZE);
        }
        EXPECT_EQ(w.mm->lru().stats().lock_rounds, 0u);
        EXPECT_EQ(w.mm->stats().pages_freed, 0u);  // the batch still holds a reference
        EXPECT_EQ(w.mm->lru().batch_size(0), n - 1);
        co_await w.mm->user_access(cpu, m, addr + (n - 1) * PAGE_SIZE, true);  // the n-th: the batch moves
        EXPECT_EQ(w.mm->lru().stats().lock_rounds, 2u);                        // add n, release the n-1 zapped
        EXPECT_EQ(w.mm->stats().pages_freed, n - 1);
        EXPECT_EQ(w.mm->lru().batch_size(0), 0u);
        done = true;
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_TRUE(done);
}

}  // namespace

TEST(Mm, without_the_drain_fifteen_folios_move_to_the_lru_in_one_lock_round) {
    batch_fills_at(kernel::KernelConfig{}, 15);  // PAGEVEC_SIZE before 6.9
}

TEST(Mm, from_six_nine_the_batch_holds_thirty_one_folios) {
    kernel::KernelConfig c;
    c.folio_batch_size = 31;  // "mm: increase folio batch size" (9cecde80aae0)
    batch_fills_at(c, 31);
}

TEST(Mm, the_lru_lock_serializes_cpus_and_its_waiters_queue) {
    MmWorld w("toy4");
    kernel::mm::SpinLock& lock = w.mm->lru().lru_lock(0);
    int inside = 0;
    int max_inside = 0;
    int done = 0;
    for (hw::CpuId c = 0; c < 4; ++c) {
        w.k->run_on(c, [&](Cpu& cpu) -> sim::Task<> {
            cpu.local_irq_disable();
            co_await lock.lock(cpu);
            max_inside = std::max(max_inside, ++inside);
            co_await cpu.compute(1_us);
            --inside;
            co_await lock.unlock(cpu);
            co_await cpu.local_irq_enable();
            if (++done == 4) w.eng.stop();
        });
    }
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(max_inside, 1);
    EXPECT_EQ(lock.acquisitions(), 4u);
    EXPECT_EQ(lock.contended(), 3u);
    EXPECT_GT(w.eng.now(), 4_us);
}
