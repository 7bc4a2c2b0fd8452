// The split PTE lock (ptdesc->ptl, pte_offset_map_lock; docs/mechanisms.md §5.5): every fault's
// PTE install and every zap take the lock of their PTE page, one line per 2 MiB of address
// space, so two threads whose 1 MiB regions share a PTE page move its line between their CPUs.
// The lock is taken with IRQs on (kernel/locking/raw_spinlock.h). toy8 (machines/toy8.toml):
// 1 GHz (1 cycle = 1 ns), L1 hit 1 ns, cross-package transfer 200 ns; CPUs 0-3 in package 0,
// 4-7 in package 1.
#include <gtest/gtest.h>

#include "kernel/mm/mm.h"
#include "kernel/smp/smp.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SIZE;
using kernel::mm::PMD_SHIFT;
using sim::Picos;

namespace {

constexpr uint64_t kRegion = 1ULL << 20;

struct PteWorld : test::KernelWorld {
    kernel::mm::Mm& mm = k->mm();
    MmStruct& m = mm.mm_alloc(0);
    // Three adjacent regions, top-down from the 2 MiB-aligned mmap base: `a` and `b` share one
    // PTE page, `c` lies in the next one down. All three merge into one VMA.
    uint64_t a = mm.mmap_before_start(m, kRegion);
    uint64_t b = mm.mmap_before_start(m, kRegion);
    uint64_t c = mm.mmap_before_start(m, kRegion);
    PteWorld() : KernelWorld("toy8") {}

    // CPU 4 faults in b at 10 us (allocating b's PTE page), computes `gap`, then faults in the
    // next page of b; `t` gets that second fault's time.
    void time_second_fault_in_b(Picos gap, Picos& t) {
        k->run_on(4, [this, gap, &t](Cpu& cpu) -> sim::Task<> {
            co_await mm.switch_mm_irqs_off(cpu, m);
            co_await cpu.compute(10_us);
            co_await mm.user_access(cpu, m, b, true);
            co_await cpu.compute(gap);  // CPU 0 works meanwhile
            const Picos t0 = cpu.now();
            co_await mm.user_access(cpu, m, b + PAGE_SIZE, true);
            t = cpu.now() - t0;
        });
    }
};

}  // namespace

TEST(PteLock, two_regions_share_a_pte_page_when_they_lie_in_one_two_mib_range) {
    PteWorld w;
    EXPECT_EQ(w.a >> PMD_SHIFT, w.b >> PMD_SHIFT);
    EXPECT_NE(w.b >> PMD_SHIFT, w.c >> PMD_SHIFT);
    EXPECT_EQ(w.m.vmas.size(), 1U);
}

// CPU 4 faults in region b twice; between its faults CPU 0 faults in a (b's PTE page) or in c
// (the next PTE page). Sharing, CPU 4's second fault takes the lock line back from the other
// package with its cmpxchg; apart, the cmpxchg hits. Everything else the two faults touch (the
// one VMA's lock line, per-CPU batches) is the same in both cases.
TEST(PteLock, a_fault_takes_the_lock_line_from_the_cpu_that_last_installed_a_pte_in_the_same_page) {
    auto second_fault = [](bool shared) {
        PteWorld w;
        Picos t4;
        w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
            co_await w.mm.switch_mm_irqs_off(cpu, w.m);
            co_await cpu.compute(20_us);
            co_await w.mm.user_access(cpu, w.m, shared ? w.a : w.c, true);
        });
        w.time_second_fault_in_b(20_us, t4);  // CPU 0 faults at 20 us
        w.k->boot();
        w.eng.run_until(1_ms);
        EXPECT_EQ(w.m.ptes.size(), 3U);
        EXPECT_EQ(w.m.ptl.at(w.b >> PMD_SHIFT)->stats().acquisitions, shared ? 3U : 2U);
        EXPECT_EQ(w.m.ptl.at(w.b >> PMD_SHIFT)->stats().contended, 0U);
        return t4;
    };
    const Picos apart = second_fault(false);
    const Picos shared = second_fault(true);
    // The transfer from package 0: 200 ns, plus 100 ns because the line's home (the PTE page's
    // struct page, on CPU 4's node: CPU 4 allocated the page) is not the holder's package. Apart,
    // the cmpxchg hits (1 ns).
    EXPECT_EQ(shared - apart, 299_ns);
}

// A zap takes the lock too: CPU 0's madvise of a page of a, between CPU 4's faults in b, leaves
// the lock line in package 0 just as a fault would.
TEST(PteLock, madvise_zaps_under_the_lock_of_the_pte_page) {
    auto second_fault = [](bool zap) {
        PteWorld w;
        Picos t4;
        w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
            co_await w.mm.switch_mm_irqs_off(cpu, w.m);
            co_await cpu.compute(5_us);
            co_await w.mm.user_access(cpu, w.m, w.c, true);  // c's page: not b's lock
            co_await cpu.compute(15_us);
            if (zap) co_await w.mm.do_madvise_dontneed(cpu, w.m, w.a, PAGE_SIZE);  // clears nothing
        });
        w.time_second_fault_in_b(30_us, t4);  // CPU 0 zaps at about 20 us
        w.k->boot();
        w.eng.run_until(1_ms);
        EXPECT_EQ(w.m.ptl.at(w.b >> PMD_SHIFT)->stats().acquisitions, zap ? 3U : 2U);
        return t4;
    };
    EXPECT_EQ(second_fault(true) - second_fault(false), 299_ns);  // as after a fault in a
}

// CPU 0 holds the lock of b's PTE page from 10 us to 20 us; CPU 4's fault in b, begun at 11 us,
// reaches it after the fault's path (toy8's handle_mm_fault is 3.756 us) and waits. At 17 us
// CPU 1 calls a function on CPU 4: the lock is taken with IRQs on, so the function runs during
// the wait, not after it, and the wait then resumes.
TEST(PteLock, a_fault_waits_for_the_holder_and_takes_an_ipi_while_it_waits) {
    PteWorld w;
    Picos ran;
    Picos faulted;
    const uint64_t pmd = w.b >> PMD_SHIFT;
    w.k->run_on(4, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm.switch_mm_irqs_off(cpu, w.m);
        co_await w.mm.user_access(cpu, w.m, w.b + 8 * PAGE_SIZE, true);  // allocates the PTE page
        co_await cpu.compute(11_us - cpu.now());
        co_await w.mm.user_access(cpu, w.m, w.b, true);
        faulted = cpu.now();
    });
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(10_us);
        kernel::RawSpinLock& ptl = *w.m.ptl.at(pmd);
        co_await ptl.raw_spin_lock(cpu);
        co_await cpu.compute(20_us - cpu.now());
        co_await ptl.raw_spin_unlock(cpu);
    });
    w.k->run_on(1, [&](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(17_us);
        kernel::SmpCallFunc func = [&ran](Cpu& c) -> sim::Task<> {
            ran = c.now();
            co_return;
        };
        co_await w.k->smp().smp_call_function_single(cpu, 4, func, true);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    const kernel::RawSpinLockStats& st = w.m.ptl.at(pmd)->stats();
    EXPECT_EQ(st.acquisitions, 3U);
    EXPECT_EQ(st.contended, 1U);
    EXPECT_GT(st.spin, 4_us);  // from about 15.7 us (the fault's path before the lock) to 20 us
    EXPECT_GT(ran, 17_us);
    EXPECT_LT(ran, 20_us);      // handled inside the wait, not after it
    EXPECT_GT(faulted, 20_us);  // the fault went on only after the release
}
