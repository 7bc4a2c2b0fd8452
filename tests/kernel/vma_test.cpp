// VMAs and the per-VMA lock (kernel/mm/vma.cpp, docs/mechanisms.md §5.5): adjacent anonymous
// mmaps merge into one VMA, munmap splits it, faults and madvise of every region then take
// that one VMA's lock, and a fault on a VMA an mmap_lock writer has write-locked falls back to
// mmap_lock and waits for the writer. toy8 (machines/toy8.toml): 1 GHz (1 cycle = 1 ns),
// syscall 100 ns; CPUs 0-3 in package 0, 4-7 in package 1.
#include <gtest/gtest.h>

#include <vector>

#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmLock;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SIZE;
using kernel::mm::Vma;
using sim::Picos;

namespace {

constexpr uint64_t kRegion = 1ULL << 20;

kernel::KernelConfig with_locks(MmLock fault, MmLock madvise) {
    kernel::KernelConfig c;
    c.fault_lock = fault;
    c.madvise_lock = madvise;
    return c;
}

struct VmaWorld : test::KernelWorld {
    kernel::mm::Mm& mm = k->mm();
    MmStruct& m = mm.mm_alloc(0);
    explicit VmaWorld(kernel::KernelConfig c = with_locks(MmLock::vma_lock, MmLock::vma_lock))
        : KernelWorld("toy8", std::move(c)) {}
};

}  // namespace

TEST(Vma, adjacent_mmaps_merge_and_munmap_splits_off_new_vmas) {
    VmaWorld w;
    std::vector<uint64_t> addr;
    const Vma* original = nullptr;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm.switch_mm_irqs_off(cpu, w.m);
        for (int i = 0; i < 3; ++i) addr.push_back(co_await w.mm.vm_mmap(cpu, w.m, kRegion));
        original = w.m.find_vma(addr[1]);
        co_await w.mm.vm_munmap(cpu, w.m, addr[1], kRegion);  // the middle one
        EXPECT_EQ(w.m.vmas.size(), 2U);
        addr.push_back(co_await w.mm.vm_mmap(cpu, w.m, kRegion));
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_EQ(addr.size(), 4U);
    // Top-down: each below the last; the new mapping fills the hole.
    EXPECT_EQ(addr[1], addr[0] - kRegion);
    EXPECT_EQ(addr[2], addr[1] - kRegion);
    EXPECT_EQ(addr[3], addr[1]);
    ASSERT_EQ(w.m.vmas.size(), 1U);
    const Vma* v = w.m.find_vma(addr[0]);
    EXPECT_EQ(v->start, addr[2]);
    EXPECT_EQ(v->end, addr[0] + kRegion);
    // munmap detached the original object and made two new ones; the last mmap extended the
    // lower piece (prev) over the hole and the upper piece, which it removed.
    EXPECT_EQ(w.mm.stats().vma_merges, 3U);
    EXPECT_EQ(w.mm.stats().vma_splits, 2U);
    EXPECT_NE(v, original);
    EXPECT_EQ(w.m.vma_slab.size(), 3U);
    EXPECT_EQ(w.m.free_vmas.size(), 2U);
}

// Mappings made before time 0 (a workload's steady start) get the addresses and merges vm_mmap
// would give, and take no simulated time; a later munmap splits them as usual.
TEST(Vma, mappings_made_before_the_start_merge_like_mmaps_and_take_no_time) {
    VmaWorld w;
    std::vector<uint64_t> addr;
    for (int i = 0; i < 3; ++i) addr.push_back(w.mm.mmap_before_start(w.m, kRegion));
    EXPECT_EQ(addr[1], addr[0] - kRegion);
    EXPECT_EQ(addr[2], addr[1] - kRegion);
    ASSERT_EQ(w.m.vmas.size(), 1U);
    EXPECT_EQ(w.m.find_vma(addr[1])->start, addr[2]);
    EXPECT_EQ(w.m.find_vma(addr[1])->end, addr[0] + kRegion);
    EXPECT_EQ(w.mm.stats().vma_merges, 0U);  // no mmap ran
    EXPECT_EQ(w.eng.now(), Picos::zero());
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm.switch_mm_irqs_off(cpu, w.m);
        co_await w.mm.vm_munmap(cpu, w.m, addr[1], kRegion);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(w.m.vmas.size(), 2U);
    EXPECT_EQ(w.mm.stats().vma_splits, 2U);
}

// CPU 0 and CPU 4 (the other package) each fault in its own region, CPU 0 between two faults
// of CPU 4. Merged, both regions are one VMA: CPU 4's second vma_start_read takes the lock line
// CPU 0 just wrote. Kept apart by an unmapped gap, CPU 4 finds its own VMA's lock where it left
// it. (The vm_start line is only read by faults: shared, it hits either way.)
TEST(Vma, faults_in_two_merged_regions_take_the_same_lock_line) {
    auto fault_time = [](bool merged) {
        VmaWorld w;
        uint64_t a = 0;
        uint64_t b = 0;
        Picos t4;
        w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
            co_await w.mm.switch_mm_irqs_off(cpu, w.m);
            a = co_await w.mm.vm_mmap(cpu, w.m, kRegion);
            const uint64_t gap = co_await w.mm.vm_mmap(cpu, w.m, kRegion);
            b = co_await w.mm.vm_mmap(cpu, w.m, kRegion);
            if (!merged) co_await w.mm.vm_munmap(cpu, w.m, gap, kRegion);
            co_await cpu.compute(20_us);
            co_await w.mm.user_access(cpu, w.m, a, true);
        });
        w.k->run_on(4, [&](Cpu& cpu) -> sim::Task<> {
            co_await w.mm.switch_mm_irqs_off(cpu, w.m);
            co_await cpu.compute(10_us);
            co_await w.mm.user_access(cpu, w.m, b, true);  // a first touch of the VMA's lines
            co_await w.mm.do_madvise_dontneed(cpu, w.m, b, PAGE_SIZE);
            co_await cpu.compute(20_us);  // CPU 0 faults meanwhile
            const Picos t0 = cpu.now();
            co_await w.mm.user_access(cpu, w.m, b + PAGE_SIZE, true);
            t4 = cpu.now() - t0;
        });
        w.k->boot();
        w.eng.run_until(1_ms);
        EXPECT_EQ(w.m.vmas.size(), merged ? 1U : 2U);
        EXPECT_EQ(w.mm.stats().vma_lock_success, 4U);
        return t4;
    };
    const Picos apart = fault_time(false);
    const Picos merged = fault_time(true);
    // vma_start_read's read of the count (a 200 ns transfer, the line then shared) and its
    // cmpxchg (another 200 ns to take it exclusive), where apart both hit (1 ns each).
    EXPECT_EQ(merged - apart, 398_ns);
}

// CPU 4 faults in the lower of two merged regions while CPU 0 munmaps the upper one: the
// split write-locks the piece CPU 4's region is left in until mmap_write_downgrade, so the
// fault's lock_vma_under_rcu fails (VMA_LOCK_ABORT) and it waits for mmap_lock for read.
TEST(Vma, a_fault_on_a_write_locked_vma_falls_back_to_mmap_lock_and_waits_for_the_writer) {
    struct Run {
        Picos fault;
        Picos downgraded;  // when the munmap's write hold ended
        kernel::mm::MmStats stats;
    };
    auto run = [](bool munmap) {
        VmaWorld w;
        uint64_t lower = 0;
        Run r;
        w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
            co_await w.mm.switch_mm_irqs_off(cpu, w.m);
            const uint64_t upper = co_await w.mm.vm_mmap(cpu, w.m, kRegion);
            lower = co_await w.mm.vm_mmap(cpu, w.m, kRegion);
            co_await cpu.compute(10_us - cpu.now());
            if (munmap) co_await w.mm.vm_munmap(cpu, w.m, upper, kRegion);
        });
        w.k->run_on(4, [&](Cpu& cpu) -> sim::Task<> {
            co_await w.mm.switch_mm_irqs_off(cpu, w.m);
            // Into the munmap's write hold (syscall 100 ns, the split's 600 cycles, then the
            // 1500 cycles of do_munmap with the pieces write-locked, until about 12.2 us).
            co_await cpu.compute(11_us - cpu.now());
            const Picos t0 = cpu.now();
            co_await w.mm.user_access(cpu, w.m, lower, true);
            r.fault = cpu.now() - t0;
        });
        w.k->boot();
        // The write hold ends when mm_lock_seq moves (mmap_write_downgrade).
        w.eng.run_until(10_us);
        const uint64_t seq = w.m.mm_lock_seq->peek();
        while (munmap && w.eng.now() < 1_ms && w.m.mm_lock_seq->peek() == seq) w.eng.run_until(w.eng.now() + 1_ns);
        r.downgraded = w.eng.now();
        w.eng.run_until(1_ms);
        r.stats = w.mm.stats();
        return r;
    };
    const Run quiet = run(false);
    const Run busy = run(true);
    EXPECT_EQ(quiet.stats.vma_lock_success, 1U);
    EXPECT_EQ(busy.stats.vma_lock_abort, 1U);
    EXPECT_EQ(busy.stats.vma_lock_success, 0U);
    // 10 us + syscall 100 ns + split 600 + do_munmap 1500, 206 ns of line transfers (the
    // mmap_lock and mm_lock_seq lines CPU 4's fault read meanwhile) and the L1 hit (1 ns) of
    // vma_end_write_all()'s load of mm_lock_seq before its plain store.
    EXPECT_EQ(busy.downgraded, 12407_ns);
    // The fault found its VMA write-locked at ~12.16 us (exception entry 700 cycles, the walk 60,
    // the vm_start and mm_lock_seq lines from package 0), queued on mmap_lock, and went on only
    // when the downgrade granted it the lock: 1198 ns longer than undisturbed, and done after it.
    EXPECT_EQ(busy.fault - quiet.fault, 1198_ns);
    EXPECT_GT(11_us + busy.fault, busy.downgraded);
}

TEST(Vma, under_mmap_lock_faults_and_madvise_never_touch_the_vma_lock) {
    VmaWorld w(with_locks(MmLock::mmap_lock, MmLock::mmap_lock));
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm.switch_mm_irqs_off(cpu, w.m);
        const uint64_t a = co_await w.mm.vm_mmap(cpu, w.m, kRegion);
        co_await w.mm.vm_mmap(cpu, w.m, kRegion);
        co_await w.mm.user_access(cpu, w.m, a, true);
        co_await w.mm.do_madvise_dontneed(cpu, w.m, a, PAGE_SIZE);
        co_await w.mm.vm_munmap(cpu, w.m, a, kRegion);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(w.mm.stats().vma_lock_success + w.mm.stats().vma_lock_abort, 0U);
    EXPECT_EQ(w.mm.stats().vma_merges, 1U);  // merging does not depend on the lock
    EXPECT_EQ(w.mm.stats().vma_splits, 1U);
    // !CONFIG_PER_VMA_LOCK: vma_start_write is a no-op, the VMA lock line was never written.
    EXPECT_EQ(w.m.vmas.begin()->second->vm_lock->count().peek(), 0U);
    EXPECT_EQ(w.m.vmas.begin()->second->vm_lock_seq, Vma::NO_LOCK_SEQ);
}

// From 6.14 ("mm: convert mm_lock_seq to a proper seqcount") mmap_write_lock() bumps
// mm_lock_seq too: odd while the writer holds mmap_lock, so one mmap writes the line every fault
// reads twice; before, once, at the unlock.
TEST(Vma, from_614_mm_lock_seq_is_odd_while_an_mmap_writer_holds_the_lock) {
    auto seen = [](const char* version) {
        kernel::KernelConfig c = with_locks(MmLock::vma_lock, MmLock::vma_lock);
        c.version = version;
        VmaWorld w(c);
        w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
            co_await w.mm.switch_mm_irqs_off(cpu, w.m);
            co_await w.mm.vm_mmap(cpu, w.m, kRegion);
        });
        w.k->boot();
        std::vector<std::pair<uint64_t, Picos>> values{{w.m.mm_lock_seq->peek(), Picos::zero()}};
        while (w.eng.now() < 10_us) {
            w.eng.run_until(w.eng.now() + 1_ns);
            if (w.m.mm_lock_seq->peek() != values.back().first)
                values.emplace_back(w.m.mm_lock_seq->peek(), w.eng.now());
        }
        return values;
    };
    const auto old = seen("6.13");
    const auto seqcount = seen("6.14");
    ASSERT_EQ(old.size(), 2U);
    EXPECT_EQ(old[1].first, 1U);
    ASSERT_EQ(seqcount.size(), 3U);
    EXPECT_EQ(seqcount[1].first, 1U);  // taken: odd
    EXPECT_EQ(seqcount[2].first, 2U);  // released: even
    // The begin bump comes right after down_write; the end bump as late as the old kernel's
    // single one, plus the begin's load and store (two L1 hits, 2 ns).
    EXPECT_LT(seqcount[1].second, old[1].second);
    EXPECT_EQ(seqcount[2].second - old[1].second, 2_ns);
}
