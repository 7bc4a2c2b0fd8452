// The protocol contracts (src/check/contracts.h): each is broken once on purpose and the report
// names what broke; the correct sequence of the same events reports nothing.
#include <gtest/gtest.h>

#include "check/contracts.h"
#include "check/freed_tables.h"
#include "check/monitors.h"
#include "kernel/mm/mm.h"
#include "kernel/mm_world.h"
#include "kernel/tlbflush/global_asid.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using check::Contracts;
using check::ViolationKind;

namespace {

bool has(const std::optional<check::Violation>& v, const std::string& text) {
    return v.has_value() && v->diagnosis.find(text) != std::string::npos;
}

TEST(RarSlotContract, a_payload_slot_rewritten_while_a_target_byte_is_still_pending_is_a_violation) {
    Contracts c(4);
    EXPECT_FALSE(c.rar_payload_written(1, 3, 10_ns).has_value());
    c.rar_action_pending(1, 2, 3, 12_ns);
    c.rar_action_pending(1, 0, 3, 13_ns);
    c.rar_action_done(3);  // one of the two targets is done
    const auto v = c.rar_payload_written(1, 3, 50_ns);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->kind, ViolationKind::contract);
    EXPECT_EQ(v->cpu, 1u);
    EXPECT_EQ(v->time, 50_ns);
    EXPECT_TRUE(has(v,
                    "cpu1 rewrote RAR payload slot 3 at 50 ns while 1 target(s) still had its action byte "
                    "PENDING (the last: cpu0, set by cpu1 at 13 ns)"))
        << v->diagnosis;
    EXPECT_TRUE(has(v, "a payload slot reused while pending")) << v->diagnosis;
}

TEST(RarSlotContract, a_payload_slot_is_reusable_once_every_target_stored_success) {
    Contracts c(4);
    EXPECT_FALSE(c.rar_payload_written(1, 3, 10_ns).has_value());
    c.rar_action_pending(1, 2, 3, 12_ns);
    c.rar_action_pending(1, 0, 3, 13_ns);
    c.rar_action_done(3);
    c.rar_action_done(3);
    EXPECT_FALSE(c.rar_payload_written(1, 3, 50_ns).has_value());
    // Another slot's pending bytes do not matter.
    c.rar_action_pending(1, 2, 4, 60_ns);
    EXPECT_FALSE(c.rar_payload_written(2, 3, 70_ns).has_value());
}

TEST(TlbsyncContract, a_flush_that_returns_after_an_invlpgb_without_tlbsync_is_a_violation) {
    Contracts c(4);
    EXPECT_FALSE(c.flush_returned(2, 5_ns).has_value());
    c.invlpgb_issued(2, false, 10_ns);
    c.invlpgb_issued(2, false, 11_ns);
    EXPECT_FALSE(c.flush_returned(1, 20_ns).has_value());  // another CPU's flush
    const auto v = c.flush_returned(2, 20_ns);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cpu, 2u);
    EXPECT_TRUE(has(v,
                    "cpu2's flush_tlb_mm_range() returned at 20 ns with 2 INVLPGB(s) issued since its last "
                    "TLBSYNC (the first at 10 ns): INVLPGB without a TLBSYNC before return"))
        << v->diagnosis;
    c.tlbsync_returned(2);
    EXPECT_FALSE(c.flush_returned(2, 30_ns).has_value());
}

TEST(GlobalAsidContract, a_freed_global_asid_given_out_again_without_a_flushing_reset_is_a_violation) {
    Contracts c(2);
    EXPECT_FALSE(c.global_asid_assigned(0, 6, 1_ns).has_value());  // never freed: fine
    c.global_asid_freed(1, 6, 10_ns);
    c.global_asid_reset_begin(0);
    c.global_asid_reset_end(0);  // no flush in between
    const auto v = c.global_asid_assigned(0, 6, 20_ns);
    ASSERT_TRUE(v.has_value());
    EXPECT_TRUE(has(v,
                    "cpu0 gave global ASID 6 to an mm at 20 ns, but it was freed by cpu1 at 10 ns and no "
                    "reset_global_asid_space() has flushed every PCID since (1 reset(s) in the run, 0 with the "
                    "flush): a global ASID reused without the wrap flush"))
        << v->diagnosis;
}

TEST(GlobalAsidContract, a_freed_global_asid_is_reusable_after_a_reset_that_flushed_every_pcid) {
    Contracts c(2);
    c.global_asid_freed(1, 6, 10_ns);
    c.global_asid_reset_begin(0);
    c.invlpgb_issued(0, /*all_asids=*/true, 11_ns);
    c.tlbsync_returned(0);
    c.global_asid_reset_end(0);
    EXPECT_FALSE(c.global_asid_assigned(0, 6, 20_ns).has_value());
    // RAR's flush_tlb_all() counts as well; a flush on another CPU than the resetting one not.
    c.global_asid_freed(1, 7, 30_ns);
    c.global_asid_reset_begin(0);
    c.tlb_flushed_all(1);
    c.global_asid_reset_end(0);
    EXPECT_TRUE(c.global_asid_assigned(0, 7, 40_ns).has_value());
    c.global_asid_freed(1, 8, 50_ns);
    c.global_asid_reset_begin(1);
    c.tlb_flushed_all(1);
    c.global_asid_reset_end(1);
    EXPECT_FALSE(c.global_asid_assigned(0, 8, 60_ns).has_value());
}

// The kernel's allocator on a small ASID space (6 dynamic ASIDs, MAX_ASID_AVAILABLE 9: global
// ASIDs 6..8): mm1 and mm2 get 6 and 7, mm1 is freed, mm3 gets 8, mm2 is freed; mm4 wraps the
// space and gets 6 again. Returns the number of contract violations.
uint64_t asid_wrap_scenario(bool flush_at_reset) {
    mmtest::MmWorld w("toy4", "invlpgb");
    check::Monitors mon(*w.plat);
    uint64_t total = 0;
    {
        check::Monitors::Installed on(mon);
        hw::Invlpgb& unit = *w.plat->invlpgb();
        kernel::GlobalAsids asids(
            w.plat->memory(),
            [&unit, flush_at_reset](hw::Cpu& cpu) -> sim::Task<> {
                if (!flush_at_reset) co_return;
                co_await unit.invlpgb(cpu, hw::InvlpgbOp::all_nonglobals());
                co_await unit.tlbsync(cpu);
            },
            6, 9);
        std::vector<kernel::mm::MmStruct*> mms;
        for (int i = 0; i < 4; ++i) mms.push_back(&w.mm->mm_alloc(0));
        std::vector<uint64_t> got;
        w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> {
            co_await asids.use_global_asid(cpu, *mms[0]);
            co_await asids.use_global_asid(cpu, *mms[1]);
            co_await asids.mm_free_global_asid(cpu, *mms[0]);
            co_await asids.use_global_asid(cpu, *mms[2]);
            co_await asids.mm_free_global_asid(cpu, *mms[1]);
            co_await asids.use_global_asid(cpu, *mms[3]);
            for (auto* m : mms) got.push_back(m->global_asid->peek());
        });
        w.k->boot();
        w.eng.run_until(1_ms);
        w.eng.shutdown();
        EXPECT_EQ(got, (std::vector<uint64_t>{0, 0, 8, 6}));
        EXPECT_EQ(asids.stats().resets, 2u);
        total = mon.total();
        if (total > 0) {
            EXPECT_EQ(mon.violations().front().kind, ViolationKind::contract);
            EXPECT_NE(mon.violations().front().diagnosis.find("gave global ASID 6 to an mm"), std::string::npos)
                << mon.violations().front().diagnosis;
        }
    }
    return total;
}

TEST(GlobalAsidContract, the_allocator_reusing_an_asid_after_a_reset_without_its_flush_is_caught) {
    EXPECT_EQ(asid_wrap_scenario(/*flush_at_reset=*/false), 1u);
}

TEST(GlobalAsidContract, the_allocator_reusing_an_asid_after_the_invlpgb_wrap_flush_is_no_violation) {
    EXPECT_EQ(asid_wrap_scenario(/*flush_at_reset=*/true), 0u);
}

}  // namespace

namespace {

// switch_mm_irqs_off() writes CR3 (the new mm's PCID), then loaded_mm, then loaded_mm_asid: in
// between, loaded_mm names the new mm while loaded_mm_asid still names the previous one's ASID.
// The freed-table rule must look up the new mm's range under the PCID in CR3, not under the old
// ASID, whose entries at the same addresses belong to the other mm (toy8 rar-naive seed 75
// --no-perturb reported such an entry of a CPU's private mm as stale).
TEST(FreedTablesRule, a_cpu_between_its_cr3_write_and_its_loaded_mm_asid_store_is_judged_by_its_cr3_pcid) {
    mmtest::MmWorld w("toy4", "ipi");
    kernel::mm::MmStruct& a = w.mm->mm_alloc(0);
    kernel::mm::MmStruct& b = w.mm->mm_alloc(0);
    const uint64_t va = 0x7effffffe000ULL;
    kernel::mm::CpuTlbState& st = w.mm->tlbstate(1);
    st.loaded_mm->poke(a.id);        // already the new mm
    st.loaded_mm_asid->poke(1);      // still b's ASID: PCID 2
    w.mm->tlb(1).fill(2, va, 1_ns);  // b's translation of the same address
    std::vector<hw::Pcid> cr3(w.plat->nr_cpus(), 0);
    // Without a CR3 write seen, the kernel's loaded_mm_asid is all there is: b's entry counts.
    EXPECT_TRUE(check::check_freed_tables(*w.mm, cr3, 0, a.id, va, va + kernel::mm::PAGE_SIZE, 10_ns, 20_ns));
    cr3[1] = 3;  // CR3 holds a's PCID (ASID 2), flushed at the switch: nothing of a is cached
    EXPECT_FALSE(check::check_freed_tables(*w.mm, cr3, 0, a.id, va, va + kernel::mm::PAGE_SIZE, 10_ns, 20_ns));
    w.mm->tlb(1).fill(3, va, 5_ns);  // but an entry of a's filled before the flush began is stale
    const auto v = check::check_freed_tables(*w.mm, cr3, 0, a.id, va, va + kernel::mm::PAGE_SIZE, 10_ns, 20_ns);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cpu, 1u);
    (void)b;
}

}  // namespace
