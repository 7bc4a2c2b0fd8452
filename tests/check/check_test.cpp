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

TEST(Check, a_protocol_that_flushes_only_the_initiator_is_caught_as_a_stale_translation) {
    const check::ExploreResult r = check::explore(spec_for("ipi-local-only", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    ASSERT_FALSE(r.failure.violations.empty());
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::stale_translation);
    // munmap's freed page tables are still cached by a CPU the flush skipped.
    EXPECT_NE(v.diagnosis.find("when cpu2 frees the page tables"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("has not been applied on cpu3"), std::string::npos) << v.diagnosis;
    EXPECT_NE(r.failure.window.find("clears PTE"), std::string::npos) << r.failure.window;
}

TEST(Check, a_protocol_that_returns_before_its_targets_flushed_is_caught_as_a_stale_translation) {
    const check::ExploreResult r = check::explore(spec_for("ipi-no-wait", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    EXPECT_EQ(r.failure.violations.front().kind, ViolationKind::stale_translation);
    EXPECT_NE(r.failure.violations.front().diagnosis.find("has not been applied on cpu"), std::string::npos)
        << r.failure.violations.front().diagnosis;
}

TEST(Check, two_locks_taken_in_opposite_orders_are_caught_as_a_deadlock_with_its_cycle) {
    const check::ExploreResult r = check::explore(spec_for("abba-deadlock", 50));
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(*r.failing_seed, 1u);
    const check::Violation& v = r.failure.violations.front();
    EXPECT_EQ(v.kind, ViolationKind::deadlock);
    EXPECT_NE(v.diagnosis.find("wait-for cycle cpu1 -> cpu2 -> cpu1"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("holds abba_lock_b; waits on abba_lock_a"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("holds abba_lock_a; waits on abba_lock_b"), std::string::npos) << v.diagnosis;
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
