// The menu governor in the idle loop (kernel/sched/cpuidle.h): a task that sleeps with a
// timeout (Sched::sleep_for) leaves its CPU idle until the timer; the governor sees that timer
// as the next one. toy4 (machines/toy4.toml): POLL, C1 (target residency 2 us), C6 (200 us);
// HZ=250 (a 4 ms tick).
#include <gtest/gtest.h>

#include "kernel/sched/sched.h"
#include "mm_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using mmtest::MmWorld;
using sim::Picos;

namespace {

// Idle entries per state, all CPUs, when a task on CPU 1 has slept `sleep` ten times.
std::vector<uint64_t> entries_of_sleeper(Picos sleep) {
    MmWorld w("toy4");
    kernel::Sched& sched = w.k->sched();
    sched.cpuidle().set_enabled(true);
    std::vector<uint64_t> e;
    sched.spawn(
        "sleeper", 1,
        [&](Cpu& cpu, kernel::Thread&) -> sim::Task<> {
            for (int i = 0; i < 10; ++i) {
                co_await cpu.compute(1_us);
                co_await sched.sleep_for(cpu, sleep);
            }
            e = sched.cpuidle().entries();
        },
        hw::Activity::user);
    w.k->boot();
    w.eng.run_until(10_ms);
    e.resize(3);
    return e;
}

}  // namespace

TEST(Cpuidle, a_sleep_with_a_timeout_is_predicted_from_its_timer_from_the_first_one) {
    // The intervals give no prediction at first (an empty ring), but the timer does: 50 us
    // caps it, so C1, never C6. The other idle CPUs (0, 2, 3: no timer, no history) enter C6
    // once each and stay there.
    std::vector<uint64_t> e = entries_of_sleeper(50_us);
    EXPECT_EQ(e[1], 10U);  // the ten sleeps: C1
    EXPECT_EQ(e[2], 3U);
    // 300 us sleeps (each 400 us with toy4's 100 us C6 wake): C6 (200 us) fits under the timer.
    e = entries_of_sleeper(300_us);
    EXPECT_EQ(e[1], 0U);
    EXPECT_EQ(e[2], 3U + 10U);
}
