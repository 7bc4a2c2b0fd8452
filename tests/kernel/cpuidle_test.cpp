// The cpuidle governor's prediction (kernel/sched/cpuidle.h): the last idle interval less the
// entered state's declared exit latency, as menu_update() (drivers/cpuidle/governors/menu.c)
// counts it, and the state that prediction picks on Sapphire Rapids (intel_idle spr_cstates:
// POLL, C1 1/1 us, C1E 2/4 us, C6 290/800 us exit latency / target residency).
#include <gtest/gtest.h>

#include "kernel/sched/cpuidle.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using kernel::Cpuidle;

TEST(Cpuidle, the_measured_interval_loses_the_declared_exit_latency_or_half_of_itself) {
    EXPECT_EQ(Cpuidle::deduct_exit_latency(3_ms, 290_us), 2710_us);
    EXPECT_EQ(Cpuidle::deduct_exit_latency(400_us, 290_us), 200_us);  // under 2 x 290 us: halved
    EXPECT_EQ(Cpuidle::deduct_exit_latency(10_us, 1_us), 9_us);
    EXPECT_EQ(Cpuidle::deduct_exit_latency(2_us, 1_us), 1_us);
}

TEST(Cpuidle, a_short_c6_residency_sends_the_next_idle_period_to_a_shallow_state) {
    const hw::MachineSpec spr = test::load_test_machine("sapphire_rapids_30c");
    ASSERT_EQ(spr.idle.size(), 4U);
    EXPECT_EQ(Cpuidle::choose(spr, /*long_next=*/true, 0_ns), 3U);  // no history: C6
    // 400 us in C6 (a lock convoy's wait): predicted 200 us, below C6's 800 us residency.
    EXPECT_EQ(Cpuidle::choose(spr, false, Cpuidle::deduct_exit_latency(400_us, spr.idle[3].exit_latency)), 2U);
    // 3 ms in C6: predicted 2.71 ms, C6 again.
    EXPECT_EQ(Cpuidle::choose(spr, false, Cpuidle::deduct_exit_latency(3_ms, spr.idle[3].exit_latency)), 3U);
    // 3 us in C1E (2 us exit latency): 1.5 us, below C1E's 4 us: C1.
    EXPECT_EQ(Cpuidle::choose(spr, false, Cpuidle::deduct_exit_latency(3_us, spr.idle[2].exit_latency)), 1U);
}
