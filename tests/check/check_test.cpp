// `ipisim check`'s engine: the checking workload with the monitors and seeded perturbation.
// Each mutant is caught within the seeds it needs (fewer than 50) with the right diagnosis; the
// shipped protocols pass; a run is deterministic per seed; the monitors change nothing.
#include <gtest/gtest.h>

#include "check/explore.h"
#include "check/mutants.h"
#include "sim/registry.h"
#include "support/kernel_world.h"

using namespace ipisim;
using check::ViolationKind;

namespace {

check::ExploreSpec spec_for(const std::string& protocol, uint64_t seeds, const std::string& machine = "toy4") {
    check::register_mutants();
    check::ExploreSpec ex;
    ex.base.protocol = protocol;
    ex.base.machine = test::load_test_machine(machine);
    ex.seeds = seeds;
    ex.jobs = 1;
    return ex;
}

// The checker on one seed only (seed `seed` of `protocol` on toy4).
check::ExploreResult explore_seed(const std::string& protocol, uint64_t seed) {
    check::ExploreSpec ex = spec_for(protocol, 1);
    ex.first_seed = seed;
    return check::explore(ex);
}

TEST(Check, a_protocol_that_flushes_only_the_initiator_is_caught_as_a_stale_translation) {
    const check::ExploreResult r = check::explore(spec_for("ipi-local-only", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    ASSERT_FALSE(r.failure.violations.empty());
    // Seed 1: cpu2's madvise clears a PTE cpu0 still caches; its flush stayed on cpu2.
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::stale_translation);
    EXPECT_NE(v.diagnosis.find("cpu0 used a stale translation of mm 3"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("cpu2 cleared the PTE"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("before every CPU that caches the mm had applied the flush"), std::string::npos)
        << v.diagnosis;
    EXPECT_NE(r.failure.window.find("clears PTE"), std::string::npos) << r.failure.window;
    // Seed 2: cpu2's munmap frees page tables cpu0 may still walk.
    const check::ExploreResult r2 = explore_seed("ipi-local-only", 2);
    ASSERT_TRUE(r2.failing_seed.has_value());
    ASSERT_FALSE(r2.failure.violations.empty());
    EXPECT_EQ(r2.failure.violations.front().kind, ViolationKind::stale_translation);
    EXPECT_NE(r2.failure.violations.front().diagnosis.find("cpu2 frees the page tables"), std::string::npos)
        << r2.failure.violations.front().diagnosis;
}

TEST(Check, a_protocol_that_returns_before_its_targets_flushed_is_caught_as_a_stale_translation) {
    const check::ExploreResult r = check::explore(spec_for("ipi-no-wait", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    // Seed 3: a freed-table flush returned before a lazy CPU applied it.
    EXPECT_EQ(*r.failing_seed, 3u);
    EXPECT_EQ(r.failure.violations.front().kind, ViolationKind::stale_translation);
    EXPECT_NE(r.failure.violations.front().diagnosis.find("has not been applied on cpu0"), std::string::npos)
        << r.failure.violations.front().diagnosis;
    // Seed 18: a page released while cpu0 still used its translation.
    const check::ExploreResult r18 = explore_seed("ipi-no-wait", 18);
    ASSERT_TRUE(r18.failing_seed.has_value());
    EXPECT_EQ(r18.failure.violations.front().kind, ViolationKind::stale_translation);
    EXPECT_NE(r18.failure.violations.front().diagnosis.find(
                  "the flush protocol returned (or the page was freed) before every CPU"),
              std::string::npos)
        << r18.failure.violations.front().diagnosis;
}

TEST(Check, two_locks_taken_in_opposite_orders_are_caught_as_a_deadlock_with_its_cycle) {
    const check::ExploreResult r = check::explore(spec_for("abba-deadlock", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::deadlock);
    EXPECT_NE(v.diagnosis.find("wait-for cycle cpu2 -> cpu1 -> cpu2"), std::string::npos) << v.diagnosis;
    // Each also holds mmap_lock for read (madvise, munmap's downgraded lock): the rwsem holders.
    EXPECT_NE(v.diagnosis.find("holds abba_lock_b, mm[3].mmap_lock (read); waits on abba_lock_a"), std::string::npos)
        << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("holds abba_lock_a, mm[3].mmap_lock (read); waits on abba_lock_b"), std::string::npos)
        << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("(IRQs off)"), std::string::npos) << v.diagnosis;
    EXPECT_TRUE(r.failure.drained);
}

TEST(Check, a_protocol_that_skips_lazy_cpus_although_page_tables_were_freed_is_caught) {
    const check::ExploreResult r = check::explore(spec_for("ipi-skip-lazy-freed", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::stale_translation);
    EXPECT_NE(v.diagnosis.find("(lazy TLB: mm still loaded)"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("a freed-table flush must reach lazy CPUs too"), std::string::npos) << v.diagnosis;
}

TEST(Check, a_csd_queued_on_an_empty_queue_without_its_ipi_is_caught_as_a_lost_wake_up) {
    const check::ExploreResult r = check::explore(spec_for("llist-no-empty-check", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::stuck_wait);
    EXPECT_NE(v.diagnosis.find("lost wake-up"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("waits on cfd_csd"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("smp_call_function_many_cond"), std::string::npos) << v.diagnosis;
}

TEST(Check, seed_000_rar_without_its_loop_back_is_caught_reusing_a_payload_slot_still_pending) {
    // Its first failing seed: the sender rewrites its payload slot while a skipped target still
    // has it pending.
    const check::ExploreResult r = check::explore(spec_for("rar-optimized-noloop", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::contract);
    EXPECT_NE(v.diagnosis.find("a payload slot reused while pending"), std::string::npos) << v.diagnosis;
    // Seed 128: a CPU another sender had claimed is skipped and never flushed.
    const check::ExploreResult r4 = explore_seed("rar-optimized-noloop", 128);
    ASSERT_TRUE(r4.failing_seed.has_value());
    EXPECT_EQ(*r4.failing_seed, 128u);
    EXPECT_EQ(r4.failure.violations.front().kind, ViolationKind::stale_translation);
}

// The senders' loops read lines ahead (hw/coherence/read_ahead.h) only with fill_buffers > 1,
// which the toy machines leave at 1: the same protocols with eight fill buffers on toy8.
TEST(Check, with_loads_read_ahead_the_shipped_flushes_pass_and_the_noloop_mutant_is_still_caught) {
    for (const char* protocol : {"ipi", "rar-naive", "rar-optimized"}) {
        check::ExploreSpec ex = spec_for(protocol, 30, "toy8");
        ex.base.machine.coherence.fill_buffers = 8;
        const check::ExploreResult r = check::explore(ex);
        EXPECT_FALSE(r.failing_seed.has_value()) << protocol;
    }
    check::ExploreSpec ex = spec_for("rar-optimized-noloop", 50, "toy8");
    ex.base.machine.coherence.fill_buffers = 8;
    EXPECT_TRUE(check::explore(ex).failing_seed.has_value());
}

// Store buffers (hw/coherence/store_buffer.h) let a load pass an older store, so a missing
// barrier can be seen. 6.14's lazy mm_cpumask dropped the smp_mb() of switch_mm_irqs_off() to an
// mm whose bit is already set (fixed by 83b0177a6c48): the switcher reads an old tlb_gen while
// the flusher reads the old loaded_mm, and neither flushes. Caught with buffers, not without;
// the shipped protocols pass with them.
TEST(Check, the_614_switch_mm_without_its_smp_mb_is_caught_once_stores_wait_in_store_buffers) {
    // Seeds 401-500: the first failing seed is 474 (the next is 1140; about one seed in a
    // thousand fails).
    check::ExploreSpec with = spec_for("switch-mm-no-smp-mb", 100);
    with.first_seed = 401;
    with.base.machine.coherence.store_buffer = 8;
    const check::ExploreResult r = check::explore(with);
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 474u);
    ASSERT_FALSE(r.failure.violations.empty());
    EXPECT_EQ(r.failure.violations.front().kind, ViolationKind::stale_translation);

    check::ExploreSpec without = spec_for("switch-mm-no-smp-mb", 100);
    without.first_seed = 401;
    EXPECT_FALSE(check::explore(without).failing_seed.has_value());

    for (const char* protocol : {"ipi", "rar-naive", "rar-optimized", "invlpgb"}) {
        check::ExploreSpec ex = spec_for(protocol, 30, "toy8");
        ex.base.machine.coherence.store_buffer = 8;
        const check::ExploreResult ok = check::explore(ex);
        EXPECT_FALSE(ok.failing_seed.has_value()) << protocol;
    }
}

TEST(Check, an_invlpgb_flush_that_returns_without_tlbsync_is_caught_as_a_contract_violation) {
    const check::ExploreResult r = check::explore(spec_for("invlpgb-no-tlbsync", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::contract);
    EXPECT_NE(v.diagnosis.find("INVLPGB without a TLBSYNC before return"), std::string::npos) << v.diagnosis;
}

TEST(Check, a_global_asid_space_that_wraps_without_its_flush_is_caught_reusing_an_asid) {
    const check::ExploreResult r = check::explore(spec_for("asid-reuse-no-flush", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 2u);
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::contract);
    EXPECT_NE(v.diagnosis.find("a global ASID reused without the wrap flush"), std::string::npos) << v.diagnosis;
}

// Regression (sapphire_rapids_30c rar-optimized seed 2): once the wait pass read each target's
// rar_pending ahead, a waiter could hold that line already saying -1 when it began waiting, and
// went to sleep on its first turn, before the poll that would have seen the -1: nothing was
// ever written again, a lost wake-up. The sleep now also requires the held rar_pending != -1.
TEST(Check, an_optimized_waiter_whose_rar_pending_read_ahead_says_minus_one_does_not_sleep) {
    check::ExploreSpec ex = spec_for("rar-optimized", 3, "sapphire_rapids_30c");
    const check::ExploreResult r = check::explore(ex);
    EXPECT_FALSE(r.failing_seed.has_value()) << r.failure.violations.front().diagnosis;
}

// Regression (toy8 rar-naive / rar-optimized seed 75, --no-perturb): between its CR3 write and
// its loaded_mm_asid store, a CPU switching back from its private mm was judged under the private
// mm's PCID, whose entry at the same address the freed-table rule took for the shared mm's.
TEST(Check, the_freed_table_rule_reads_the_cr3_pcid_of_a_cpu_in_the_middle_of_switch_mm) {
    for (const char* protocol : {"rar-naive", "rar-optimized"}) {
        check::ExploreSpec ex = spec_for(protocol, 1, "toy8");
        ex.first_seed = 75;
        ex.base.perturb = false;
        ex.base.process_churn = false;  // the workload the false positive was found with
        ex.base.migration = false;
        const check::ExploreResult r = check::explore(ex);
        EXPECT_FALSE(r.failing_seed.has_value())
            << protocol << ": " << (r.failure.violations.empty() ? "" : r.failure.violations.front().diagnosis);
    }
}

// Regression (toy8 rar-optimized seed 89, rar-grouped seed 157): a sender waiting on its own
// action byte slept after its own microcode had stored SUCCESS (the line stays its own, so the
// "still holds both lines" test saw no write) and never woke: a lost wake-up of the model.
TEST(Check, a_rar_sender_waiting_on_its_own_action_byte_sees_its_own_microcodes_success) {
    for (const auto& [protocol, seed] : {std::pair{"rar-optimized", 89}, std::pair{"rar-grouped", 157}}) {
        check::ExploreSpec ex = spec_for(protocol, 1, "toy8");
        ex.first_seed = static_cast<uint64_t>(seed);
        ex.base.process_churn = false;  // the workload the lost wake-up was found with
        ex.base.migration = false;
        const check::ExploreResult r = check::explore(ex);
        EXPECT_FALSE(r.failing_seed.has_value())
            << protocol << ": " << (r.failure.violations.empty() ? "" : r.failure.violations.front().diagnosis);
    }
}

TEST(Check, the_lowest_failing_seed_does_not_depend_on_the_number_of_jobs) {
    check::ExploreSpec ex = spec_for("ipi-no-wait", 20);
    ex.first_seed = 2;
    const check::ExploreResult one = check::explore(ex);
    ex.jobs = 3;
    const check::ExploreResult three = check::explore(ex);
    ASSERT_TRUE(one.failing_seed.has_value());
    EXPECT_EQ(three.failing_seed, one.failing_seed);
    EXPECT_EQ(three.failure.fingerprint, one.failure.fingerprint);
}

TEST(Check, a_seeded_run_is_deterministic_and_its_monitors_do_not_change_its_fingerprint) {
    check::StressSpec s = spec_for("ipi", 1).base;
    s.seed = 7;
    const check::StressResult a = check::run_check_stress(s);
    const check::StressResult b = check::run_check_stress(s);
    EXPECT_EQ(a.fingerprint, b.fingerprint);
    EXPECT_EQ(a.total_violations, 0u);
    EXPECT_GT(a.flushes, 20u);
    s.monitors = false;
    EXPECT_EQ(check::run_check_stress(s).fingerprint, a.fingerprint);
    s.perturb = false;
    s.monitors = true;
    const uint64_t plain = check::run_check_stress(s).fingerprint;
    EXPECT_NE(plain, a.fingerprint);  // the perturbation does change timing
    s.monitors = false;
    EXPECT_EQ(check::run_check_stress(s).fingerprint, plain);
}

// Issue 9: threads of the shared process migrate between CPUs, seeded (another seed, another
// schedule). A CPU a thread left keeps the shared mm in its mm_cpumask, lazily: the kernel trims
// the mask at most once a second (should_trim_cpumask), and a freed-table flush clears only a
// CPU that no longer runs the mm, so within a few-ms run a CPU switches the shared mm in from
// outside the mask only after such a flush took it out (mm_cpumask_joins counts it: once in seed 5
// with migration, never without); what migration changes is how often a CPU comes back to the
// shared mm with a stale PCID slot to catch up.
TEST(Check, threads_migrate_between_cpus_and_a_cpu_rejoins_the_shared_mm_cpumask_only_after_a_freed_table_flush) {
    check::StressSpec s = spec_for("ipi", 1, "toy8").base;
    s.seed = 5;
    const check::StressResult with = check::run_check_stress(s);
    EXPECT_EQ(check::run_check_stress(s).fingerprint, with.fingerprint);
    s.seed = 6;
    const check::StressResult other = check::run_check_stress(s);
    s.seed = 5;
    s.migration = false;
    const check::StressResult without = check::run_check_stress(s);
    EXPECT_EQ(with.total_violations, 0u);
    EXPECT_EQ(without.total_violations, 0u);
    EXPECT_EQ(with.migrations, 102u);
    EXPECT_EQ(other.migrations, 92u);
    EXPECT_EQ(without.migrations, 0u);
    EXPECT_EQ(with.mm_cpumask_joins, 1u);
    EXPECT_EQ(without.mm_cpumask_joins, 0u);
    // Switches into the shared mm whose PCID slot fell behind while the CPU ran something else
    // (switch_mm_irqs_off's tlb_gen catch-up): here more with migration's longer absences (not
    // in every seed: the schedules differ in more than the absences).
    EXPECT_EQ(with.catch_ups, 117u);
    EXPECT_EQ(without.catch_ups, 108u);
    EXPECT_NE(with.fingerprint, without.fingerprint);
}

TEST(Check, mutants_are_not_in_the_listed_catalog) {
    check::register_mutants();
    for (const sim::CatalogEntry& e : sim::catalog()) EXPECT_FALSE(check::is_mutant(e.name)) << e.name;
}

TEST(Check, the_replay_file_records_protocol_machine_seed_and_perturbation) {
    check::StressSpec s = spec_for("ipi-no-wait", 1).base;
    s.seed = 9;
    const std::string t = check::replay_file_text(s, "toy4");
    EXPECT_NE(t.find("protocol = \"ipi-no-wait\""), std::string::npos) << t;
    EXPECT_NE(t.find("machine = \"toy4\""), std::string::npos) << t;
    EXPECT_NE(t.find("seed = 9"), std::string::npos) << t;
    EXPECT_NE(t.find("jitter_percent = 50"), std::string::npos) << t;
}

}  // namespace
