// ASIDs by history (docs/mechanisms.md §2.2): each CPU's cpu_tlbstate.next_asid starts where
// earlier processes left it, so the workload's mm lands on different ASIDs on different CPUs, and
// a receiver's catch-up write goes to the cpu_tlbstate line flushers read (ASIDs 0-2, beside
// loaded_mm) or to the other one (3-5).
//
// toy8 (machines/toy8.toml): 2 packages (CPUs 0-3, 4-7), 1 GHz, l1_hit 1 ns, cross-package
// transfer 200 ns; 6 dynamic ASIDs.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "kernel/mm/mm.h"
#include "mm_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using mmtest::MmWorld;
using sim::Picos;

namespace {

std::vector<uint16_t> cursors(MmWorld& w) {
    std::vector<uint16_t> out;
    for (hw::CpuId c = 0; c < w.plat->nr_cpus(); ++c) out.push_back(w.mm->tlbstate(c).next_asid);
    return out;
}

// The ASID the first new mm gets on each CPU.
std::vector<uint64_t> first_asids(MmWorld& w) {
    MmStruct& mm = w.mm->mm_alloc(0);
    for (hw::CpuId c = 0; c < w.plat->nr_cpus(); ++c) {
        w.k->run_on(c, [&w, &mm](Cpu& cpu) -> sim::Task<> { co_await w.mm->switch_mm_irqs_off(cpu, mm); });
    }
    w.k->boot();
    w.eng.run_until(100_us);
    std::vector<uint64_t> out;
    for (hw::CpuId c = 0; c < w.plat->nr_cpus(); ++c) out.push_back(w.mm->tlbstate(c).loaded_mm_asid->peek());
    return out;
}

}  // namespace

TEST(AsidHistory, a_freshly_booted_kernel_gives_the_first_mm_asid_1_everywhere) {
    MmWorld w("toy8");
    EXPECT_EQ(first_asids(w), std::vector<uint64_t>(8, 1));
}

TEST(AsidHistory, a_history_puts_the_first_mm_on_the_asid_each_cpus_cursor_says) {
    MmWorld w("toy8");
    w.mm->set_asid_history(1);
    const std::vector<uint16_t> cur = cursors(w);
    std::set<uint16_t> distinct(cur.begin(), cur.end());
    EXPECT_GT(distinct.size(), 1U);
    for (uint16_t c : cur) {
        EXPECT_GE(c, 1U);
        EXPECT_LE(c, 6U);
    }
    const std::vector<uint64_t> asids = first_asids(w);
    for (size_t c = 0; c < cur.size(); ++c) EXPECT_EQ(asids[c], cur[c] == 6 ? 0U : cur[c]) << c;
}

TEST(AsidHistory, the_history_is_the_seeds) {
    MmWorld a("toy8");
    MmWorld b("toy8");
    MmWorld c("toy8");
    a.mm->set_asid_history(7);
    b.mm->set_asid_history(7);
    c.mm->set_asid_history(8);
    EXPECT_EQ(cursors(a), cursors(b));
    EXPECT_NE(cursors(a), cursors(c));
}

// CPU 0 flushes one page twice; CPU 4 (other package) runs the mm at ASID `asid`. The second
// flush's should_flush_tlb() reads CPU 4's loaded_mm: a miss when CPU 4's catch-up write to
// ctxs[asid].tlb_gen shares that line (ASID 0-2), a hit when it does not (3-5).
Picos second_flush(uint16_t asid) {
    MmWorld w("toy8");
    w.mm->tlbstate(4).next_asid = asid;
    MmStruct& mm = w.mm->mm_alloc(0);
    mmtest::start_cpus(w, mm, {4}, 1_ms);
    Picos d;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        for (int i = 0; i < 2; ++i) {
            co_await cpu.compute(20_us);
            const Picos t0 = cpu.now();
            co_await mmtest::flush_page(w, cpu, mm);
            d = cpu.now() - t0;
        }
    });
    w.k->boot();
    w.eng.run_until(200_us);
    EXPECT_EQ(w.mm->tlbstate(4).loaded_mm_asid->peek(), asid);
    return d;
}

TEST(AsidHistory, a_catch_up_write_off_the_loaded_mm_line_spares_the_flushers_read) {
    // ASID 1 costs the second flush two line transactions that ASID 4 does not:
    //   CPU 0's re-read of CPU 4's loaded_mm, invalidated by the first catch-up write:
    //     cross-package transfer 200 ns instead of a 1 ns hit  (+199)
    //   CPU 4's catch-up write, now an upgrade that invalidates CPU 0's copy: cross-package
    //     200 + remote_home_extra 100 (the line is homed on CPU 4's node, CPU 0 is in the
    //     other package) instead of a 1 ns hit  (+299); CPU 0 waits for it in csd_lock_wait.
    EXPECT_EQ(second_flush(1) - second_flush(4), 498_ns);
    EXPECT_EQ(second_flush(2), second_flush(1));
    EXPECT_EQ(second_flush(5), second_flush(4));
}
