// The `invlpgb` flush protocol (arch/x86/mm/tlb.c with CONFIG_BROADCAST_TLB_FLUSH) and its
// global ASID allocator, on toy8 (machines/toy8.toml): 1 GHz (1 cycle = 1 ns), two packages;
// l1_hit 1 ns; INVLPGB issue 10 ns, TLBSYNC 1 us; fabric one-way 500 ns (same L3) to 1 us
// (cross package), so an INVLPGB from CPU 0 completes 2 us after it leaves.
// Dynamic ASIDs 0-5 (PCIDs 1-6); global ASIDs from 6 (PCID 7). HZ = 250: a jiffy is 4 ms.
#include <gtest/gtest.h>

#include "kernel/tlbflush/invlpgb.h"
#include "mm_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::InvlpgbFlush;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SHIFT;
using kernel::mm::PAGE_SIZE;
using mmtest::flush_page;
using mmtest::kVa;
using mmtest::MmWorld;
using mmtest::start_cpus;
using sim::Picos;

namespace {

constexpr hw::Pcid kGlobalPcid = 7;  // kern_pcid(6), the first global ASID

InvlpgbFlush& proto(MmWorld& w) {
    return dynamic_cast<InvlpgbFlush&>(w.mm->protocol());
}

struct TransitionTrace {
    uint64_t global_asid_after_first = 0;
    uint64_t transition_after_first = 0;
    uint64_t transition_ipis_second = 0;
    uint64_t transitions_finished_third = 0;
    uint64_t remote_irqs_during_fourth = 0;
    size_t cpus_holding_page_after_fourth = 0;
    Picos fourth;
    uint64_t fingerprint = 0;
};

// All 8 CPUs of toy8 run `mm`; CPU 0 (pid 1024: checks in jiffies 0, 32, ...) flushes kVa four
// times, 10 us apart: (1) by IPI, after which consider_global_asid() assigns ASID 6; (2) by
// INVLPGB, finish_asid_transition() finding the CPUs on dynamic ASIDs and IPI-ing them over;
// (3) by INVLPGB, everyone converted: asid_transition cleared; (4) a plain broadcast.
TransitionTrace run_transition(MmWorld& w) {
    TransitionTrace t;
    MmStruct& mm = w.mm->mm_alloc(0);
    w.mm->set_task_pid(0, 1024);
    start_cpus(w, mm, {1, 2, 3, 4, 5, 6, 7}, 1_ms);
    InvlpgbFlush& p = proto(w);
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_us);
        co_await flush_page(w, cpu, mm);
        t.global_asid_after_first = mm.global_asid->peek();
        t.transition_after_first = mm.asid_transition->peek();
        co_await cpu.compute(10_us);
        co_await flush_page(w, cpu, mm);
        t.transition_ipis_second = p.stats().transition_ipis;
        co_await cpu.compute(10_us);
        co_await flush_page(w, cpu, mm);
        t.transitions_finished_third = p.stats().transitions_finished;
        co_await cpu.compute(10_us);
        uint64_t irqs = 0;
        for (hw::CpuId c = 0; c < 8; ++c) {
            w.mm->tlb(c).fill(w.mm->loaded_pcid(c), kVa, cpu.now());
            if (c != 0) irqs += w.cpu(c).irqs_taken();
        }
        const Picos t0 = cpu.now();
        co_await flush_page(w, cpu, mm);
        t.fourth = cpu.now() - t0;
        for (hw::CpuId c = 1; c < 8; ++c) t.remote_irqs_during_fourth += w.cpu(c).irqs_taken();
        t.remote_irqs_during_fourth -= irqs;
        for (hw::CpuId c = 0; c < 8; ++c)
            t.cpus_holding_page_after_fourth += w.mm->tlb(c).find(kGlobalPcid, kVa) != nullptr;
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    t.fingerprint = w.eng.fingerprint();
    return t;
}

}  // namespace

TEST(InvlpgbProtocol, a_broadcast_flush_interrupts_no_remote_cpu_and_the_page_is_gone_everywhere_after_tlbsync) {
    MmWorld w("toy8", "invlpgb");
    const TransitionTrace t = run_transition(w);
    EXPECT_EQ(t.remote_irqs_during_fourth, 0u);
    EXPECT_EQ(t.cpus_holding_page_after_fourth, 0u);
    // CPU 0, all lines it touches already its own (nobody else read them since flush 3):
    //     80  flush_tlb_mm_range path
    //  +   1  atomic64_inc_return(tlb_gen)   + 1 store flush_tlb_info             ->  82
    //  +   1  broadcast_tlb_flush: mm_global_asid                                    ->  83
    //  +  10  INVLPGB issue: the broadcast leaves at +93, is complete at +93 + 2 x 1 us
    //  +   2  finish_asid_transition: global_asid, asid_transition (false)           ->  95
    //  TLBSYNC: max(95 + 1000, 93 + 2000) = 2093
    EXPECT_EQ(t.fourth, Picos(2093 * 1000));
    EXPECT_EQ(proto(w).stats().broadcasts, 3u);
    EXPECT_EQ(w.mm->flush_stats().remote_flushes, 1u);  // only the first went by path (b)
}

TEST(InvlpgbProtocol, a_flush_during_the_asid_transition_moves_the_stragglers_by_ipi_then_the_transition_ends) {
    MmWorld w("toy8", "invlpgb");
    const TransitionTrace t = run_transition(w);
    EXPECT_EQ(t.global_asid_after_first, 6u);  // the first global ASID
    EXPECT_EQ(t.transition_after_first, 1u);
    EXPECT_EQ(t.transition_ipis_second, 1u);      // flush 2 fell back to flush_tlb_multi
    EXPECT_EQ(t.transitions_finished_third, 1u);  // flush 3 found everyone converted
    // Every CPU moved to the global ASID in flush 2's flush_tlb_func (step 3), the initiator
    // included, and returned at step 4.
    EXPECT_EQ(w.mm->flush_stats().asid_reloads, 8u);
    EXPECT_EQ(w.mm->flush_stats().global_asid_returns, 8u);
    for (hw::CpuId c = 0; c < 8; ++c) EXPECT_EQ(w.mm->tlbstate(c).loaded_mm_asid->peek(), 6u) << "cpu " << c;
    EXPECT_EQ(proto(w).stats().transition_ipis, 1u);
    EXPECT_EQ(w.plat->invlpgb()->stats().invlpgb, 1u + 3u);  // the reset flush + 3 broadcasts
}

TEST(InvlpgbProtocol, three_active_cpus_get_no_global_asid_and_a_fourth_gets_one_in_its_jiffy) {
    MmWorld w("toy8", "invlpgb");
    MmStruct& mm = w.mm->mm_alloc(0);
    // CPU 0's task has pid 1000: 1000 & 0x1f = 8, so it checks in jiffy 8 (32-36 ms).
    w.mm->set_task_pid(0, 1000);
    start_cpus(w, mm, {1, 2}, 100_ms);
    start_cpus(w, mm, {4}, 100_ms, /*lazy=*/{4});  // lazy: in mm_cpumask but not active
    w.k->run_on(3, [&](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(Picos(33'010 * 1000 * 1000ULL));
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(100_ms);
    });
    InvlpgbFlush& p = proto(w);
    uint64_t considered_early = 0;
    uint64_t considered_three = 0;
    uint64_t asid_three = 0;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        co_await cpu.compute(10_us);
        co_await flush_page(w, cpu, mm);  // jiffy 0: rate-limited
        considered_early = p.stats().considered;
        co_await cpu.compute(Picos(33 * 1000 * 1000 * 1000ULL) - cpu.now());
        co_await flush_page(w, cpu, mm);  // jiffy 8: 3 active CPUs (0, 1, 2) -> none
        considered_three = p.stats().considered;
        asid_three = mm.global_asid->peek();
        co_await cpu.compute(20_us);      // CPU 3 joins meanwhile
        co_await flush_page(w, cpu, mm);  // still jiffy 8: 4 active CPUs -> one
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(considered_early, 0u);
    EXPECT_EQ(considered_three, 1u);
    EXPECT_EQ(asid_three, 0u);
    EXPECT_EQ(p.stats().considered, 2u);
    EXPECT_EQ(p.stats().active_exceeded, 1u);
    EXPECT_EQ(mm.global_asid->peek(), 6u);
    EXPECT_EQ(p.global_asids().stats().allocations, 1u);
}

TEST(InvlpgbProtocol, the_first_allocation_resets_the_asid_space_with_a_flush_under_the_lock) {
    MmWorld w("toy8", "invlpgb");
    MmStruct& a = w.mm->mm_alloc(0);
    MmStruct& b = w.mm->mm_alloc(0);
    kernel::GlobalAsids& asids = proto(w).global_asids();
    for (hw::CpuId c = 0; c < 8; ++c) {
        w.mm->tlb(c).fill(3, kVa, Picos::zero());
        w.mm->tlb(c).fill(3, kVa + PAGE_SIZE, Picos::zero(), hw::PageSize::size_4k, /*global=*/true);
    }
    EXPECT_EQ(asids.last_global_asid(), kernel::MAX_ASID_AVAILABLE);
    EXPECT_EQ(asids.global_asid_available(), kernel::MAX_ASID_AVAILABLE - 6 - 1);
    Picos a_done;
    Picos b_done;
    bool lock_held_in_reset = false;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await asids.use_global_asid(cpu, a);
        a_done = cpu.now();
    });
    w.k->run_on(1, [&](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(500_ns);  // CPU 0 is in the reset flush, holding the lock
        lock_held_in_reset = asids.lock_word().peek() != 0;
        co_await asids.use_global_asid(cpu, b);
        b_done = cpu.now();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_TRUE(lock_held_in_reset);
    EXPECT_EQ(asids.stats().resets, 1u);
    EXPECT_EQ(w.plat->invlpgb()->stats().invlpgb, 1u);
    EXPECT_EQ(w.plat->invlpgb()->stats().tlbsync, 1u);
    EXPECT_GT(b_done, a_done);  // CPU 1 waited for the lock
    EXPECT_EQ(a.global_asid->peek(), 6u);
    EXPECT_EQ(b.global_asid->peek(), 7u);
    EXPECT_EQ(a.asid_transition->peek(), 1u);
    EXPECT_EQ(asids.last_global_asid(), 7u);
    EXPECT_EQ(asids.global_asid_available(), kernel::MAX_ASID_AVAILABLE - 6 - 1 - 2);
    for (hw::CpuId c = 0; c < 8; ++c) {
        EXPECT_EQ(w.mm->tlb(c).find(3, kVa), nullptr) << "cpu " << c;              // non-global: gone
        EXPECT_NE(w.mm->tlb(c).find(3, kVa + PAGE_SIZE), nullptr) << "cpu " << c;  // global: kept
    }
}

TEST(InvlpgbProtocol, freed_global_asids_are_reused_only_after_the_wrap_around_reset) {
    MmWorld w("toy8", "invlpgb");
    // A 10-ASID space: global ASIDs 6..9, global_asid_available = 10 - 6 - 1 = 3.
    kernel::GlobalAsids asids(w.plat->memory(), *w.plat->invlpgb(), 6, 10);
    std::vector<MmStruct*> mms;
    for (int i = 0; i < 5; ++i) mms.push_back(&w.mm->mm_alloc(0));
    std::vector<uint64_t> got;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        for (int i = 0; i < 4; ++i) {
            co_await asids.use_global_asid(cpu, *mms[i]);
            got.push_back(mms[i]->global_asid->peek());
        }
        co_await asids.mm_free_global_asid(cpu, *mms[0]);  // 6 freed, not reusable yet
        co_await asids.use_global_asid(cpu, *mms[3]);      // 9: above the cursor
        got.push_back(mms[3]->global_asid->peek());
        co_await asids.mm_free_global_asid(cpu, *mms[1]);  // 7 freed
        co_await asids.use_global_asid(cpu, *mms[4]);      // cursor at the top: reset, then 6
        got.push_back(mms[4]->global_asid->peek());
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(got, (std::vector<uint64_t>{6, 7, 8, 0, 9, 6}));
    EXPECT_EQ(asids.stats().exhausted, 1u);
    EXPECT_EQ(asids.stats().resets, 2u);
    EXPECT_FALSE(asids.used(7));  // freed and reset: available again
    EXPECT_TRUE(asids.used(6));
    EXPECT_EQ(asids.global_asid_available(), 0u);  // 3, -3, +1 -1, +1 -1
}

TEST(InvlpgbProtocol, the_protocol_needs_a_machine_with_invlpgb) {
    EXPECT_THROW(MmWorld("toy4_arm", "invlpgb"), std::invalid_argument);
}

TEST(InvlpgbProtocol, the_transition_scenario_is_deterministic) {
    MmWorld w1("toy8", "invlpgb");
    MmWorld w2("toy8", "invlpgb");
    const TransitionTrace a = run_transition(w1);
    const TransitionTrace b = run_transition(w2);
    EXPECT_EQ(a.fingerprint, b.fingerprint);
    EXPECT_EQ(a.fourth, b.fourth);
    EXPECT_EQ(w1.mm->flush_stats().flush_tlb_func, w2.mm->flush_stats().flush_tlb_func);
}
