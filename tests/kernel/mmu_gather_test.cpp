// The mmu_gather's nesting count (kernel/mm/mmu_gather.cpp, mm/mmu_gather.c): a zap flushes its
// own range when it is the mm's only open gather, and the whole mm, freed_tables set, when another
// thread's gather is open at its tlb_finish_mmu (mm_tlb_flush_nested).
//
// toy4 (machines/toy4.toml): 1 GHz; CPUs 0,1 are cores 0,1 and CPUs 2,3 their SMT siblings, all
// in one L3; l1_hit 1 ns, same-L3 transfer 50 ns, memory 100 ns, no line occupancy.
#include <gtest/gtest.h>

#include <vector>

#include "mm_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SIZE;
using mmtest::MmWorld;
using sim::Picos;

namespace {

constexpr uint64_t kRegion = 1ULL << 20;

}  // namespace

TEST(MmuGather, a_zap_alone_flushes_its_range_and_takes_its_gather_back) {
    MmWorld w("toy4");
    MmStruct& mm = w.mm->mm_alloc(0);
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        const uint64_t addr = co_await w.mm->vm_mmap(cpu, mm, kRegion);
        co_await w.mm->user_access(cpu, mm, addr, true);
        co_await w.mm->do_madvise_dontneed(cpu, mm, addr, PAGE_SIZE);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(w.mm->stats().nested_flushes, 0u);
    EXPECT_EQ(w.mm->flush_stats().full_range, 0u);  // the one page, not the whole mm
    EXPECT_EQ(w.mm->flush_stats().partial, 1u);
    EXPECT_EQ(mm.tlb_flush_pending->peek(), 0u);
}

TEST(MmuGather, a_zap_that_finishes_while_another_gather_is_open_flushes_the_whole_mm_with_freed_tables) {
    MmWorld w("toy4");
    MmStruct& mm = w.mm->mm_alloc(0);
    uint64_t addr = 0;
    Picos gather_on_cpu1;
    Picos gather_on_cpu0;
    // CPU 2 is in the mm but lazy: a freed-tables flush reaches it too.
    w.k->run_on(2, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await w.mm->enter_lazy_tlb(cpu);
    });
    // CPU 1 opens a gather at 10 us and keeps it open (a zap in progress on another thread).
    w.k->run_on(1, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_us);
        const Picos t0 = cpu.now();
        co_await w.mm->tlb_gather_mmu(cpu, mm);
        gather_on_cpu1 = cpu.now() - t0;
        co_await cpu.compute(100_us);
    });
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        addr = co_await w.mm->vm_mmap(cpu, mm, kRegion);
        co_await w.mm->user_access(cpu, mm, addr, true);
        co_await w.mm->user_access(cpu, mm, addr + PAGE_SIZE, false);  // cached translations
        co_await cpu.compute(20_us);
        Picos t0 = cpu.now();
        co_await w.mm->tlb_gather_mmu(cpu, mm);
        gather_on_cpu0 = cpu.now() - t0;
        // A zap that cleared nothing: alone it would flush nothing (tlb_flush_mmu_tlbonly); nested,
        // freed_tables forces the flush of the whole mm.
        kernel::mm::TlbRelease r;
        r.mm = &mm;
        r.start = addr + 2 * PAGE_SIZE;
        r.end = addr + 3 * PAGE_SIZE;
        r.zapper = cpu.id();
        co_await w.mm->tlb_finish_mmu(cpu, std::move(r));
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    // The count's line comes from memory for the first gather (100 ns) and from CPU 1's L1 for
    // the second (a same-L3 transfer, 50 ns).
    EXPECT_EQ(gather_on_cpu1, 100_ns);
    EXPECT_EQ(gather_on_cpu0, 50_ns);
    EXPECT_EQ(w.mm->stats().nested_flushes, 1u);
    EXPECT_EQ(w.mm->flush_stats().full_range, 1u);
    EXPECT_EQ(w.mm->flush_stats().partial, 0u);
    // The whole PCID went: the translations of pages outside the zapped range too.
    EXPECT_EQ(w.mm->tlb(0).find(w.mm->loaded_pcid(0), addr), nullptr);
    EXPECT_EQ(w.mm->tlb(0).find(w.mm->loaded_pcid(0), addr + PAGE_SIZE), nullptr);
    // freed_tables: the lazy CPU took the IPI and left the mm.
    EXPECT_EQ(w.cpu(2).irqs_taken(), 1u);
    EXPECT_EQ(w.mm->loaded_mm(2), w.mm->init_mm().id);
    // CPU 0's gather is closed, CPU 1's still open.
    EXPECT_EQ(mm.tlb_flush_pending->peek(), 1u);
}

// A program page present before the start (Mm::populate_before_start: tlb_flush2's text, stack,
// counter): its first translation is a page walk (toy4: 10 ns), later ones hit (no time), and a
// flush of the whole mm makes it a walk again; a one-page flush elsewhere does not.
TEST(MmuGather, a_program_page_is_walked_again_only_after_a_flush_of_the_whole_mm) {
    MmWorld w("toy4");
    MmStruct& mm = w.mm->mm_alloc(0);
    constexpr uint64_t kText = 0x401000;
    w.mm->populate_before_start(mm, kText);
    std::vector<Picos> took;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        auto access = [&]() -> sim::Task<> {
            const Picos t0 = cpu.now();
            co_await w.mm->user_access(cpu, mm, kText, false);
            took.push_back(cpu.now() - t0);
        };
        co_await access();
        co_await access();
        co_await mmtest::flush_page(w, cpu, mm);  // kVa only
        co_await access();
        co_await w.mm->flush_tlb_mm_range(cpu, mm, 0, kernel::mm::TLB_FLUSH_ALL, kernel::mm::PAGE_SHIFT, false);
        co_await access();
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(took, (std::vector<Picos>{10_ns, 0_ns, 0_ns, 10_ns}));
    EXPECT_EQ(w.mm->stats().faults, 0u);
}
