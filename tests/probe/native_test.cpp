// The native measurements run and return what they promise (sample counts, loops counted, the
// zero read-back held). No test asserts a duration: speed is not what they check.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "probe/affinity.h"
#include "probe/cacheline.h"
#include "probe/context_switch.h"
#include "probe/core_clock.h"
#include "probe/membarrier.h"
#include "probe/page_fault.h"
#include "probe/pinned_threads.h"
#include "probe/tlb_flush2_native.h"

namespace ipisim::probe {
namespace {

const Effort kTiny{3, 1, 0.01, 2};

std::vector<int> two_cpus() {
    std::vector<int> cpus = allowed_cpus();
    if (cpus.size() > 2) cpus.resize(2);
    return cpus;
}

TEST(ProbeNative, a_thread_that_cannot_be_pinned_stops_every_side_and_names_the_cpu) {
    bool ran = false;
    try {
        run_pinned({allowed_cpus().front(), 1023}, [&](size_t) { ran = true; });
        FAIL() << "CPU 1023 was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("CPU 1023"), std::string::npos);
    }
    EXPECT_FALSE(ran);
}

TEST(ProbeNative, the_core_clock_reads_as_a_clock_a_core_can_run_at) {
    // The add chain this replaced read 20.7 GHz on a Sapphire Rapids guest (Golden Cove folds
    // `add reg, imm` chains). Preemption can only lower a sample, so the fastest one is checked.
    const std::vector<double> mhz = core_clock_mhz(allowed_cpus().front(), kTiny);
#if defined(__x86_64__)
    ASSERT_EQ(mhz.size(), 3U);
    const double fastest = *std::max_element(mhz.begin(), mhz.end());
    EXPECT_TRUE(plausible_core_clock_mhz(fastest)) << fastest << " MHz";
#else
    EXPECT_TRUE(mhz.empty());
#endif
    EXPECT_FALSE(plausible_core_clock_mhz(20725));
    EXPECT_FALSE(plausible_core_clock_mhz(250));
    EXPECT_TRUE(plausible_core_clock_mhz(3500));
}

TEST(ProbeNative, ping_pong_returns_one_sample_per_repeat) {
    const std::vector<int> cpus = two_cpus();
    if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
    const std::vector<double> s = cas_ping_pong_ns(cpus[0], cpus[1], 100, kTiny);
    ASSERT_EQ(s.size(), 3U);
    for (double v : s) EXPECT_GT(v, 0);
}

TEST(ProbeNative, pipe_ping_pong_on_one_cpu_returns_one_sample_per_repeat) {
    const int cpu = allowed_cpus().front();
    EXPECT_EQ(pipe_ping_pong_ns(cpu, cpu, 20, kTiny).size(), 3U);
}

TEST(ProbeNative, membarrier_either_measures_both_cases_or_says_why_not) {
    const std::vector<int> cpus = two_cpus();
    if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
    const MembarrierResult m = measure_membarrier(cpus[0], cpus[1], 20, kTiny);
    if (!m.skipped.empty()) GTEST_SKIP() << m.skipped;
    EXPECT_EQ(m.spinning.call_ns.size(), 3U);
    EXPECT_EQ(m.spinning.target_lost_ns.size(), 3U);  // the spinning target's lost time, per batch
    EXPECT_TRUE(m.sleeping.target_lost_ns.empty());
    EXPECT_EQ(m.sleeping.call_ns.size(), 3U);
}

TEST(ProbeNative, dontneed_refault_splits_each_cycle_into_madvise_and_refault) {
    const DontneedRefault d = dontneed_refault(allowed_cpus().front(), std::nullopt, 50, kTiny);
    EXPECT_EQ(d.cycle_ns.size(), 3U);
    EXPECT_EQ(d.madvise_ns.size(), 3U);
    EXPECT_EQ(d.refault_ns.size(), 3U);
    EXPECT_EQ(d.read_back_ns.size(), 3U);
    EXPECT_EQ(anon_write_fault_ns(allowed_cpus().front(), 16, kTiny).size(), 3U);
}

TEST(ProbeNative, tlb_flush2_counts_loops_in_both_modes_and_every_page_read_back_zero) {
    for (TaskMode mode : {TaskMode::threads, TaskMode::processes}) {
        NativeTlbFlush2Options o;
        o.mode = mode;
        o.cpus = two_cpus();
        o.warmup_s = 0.01;
        o.window_s = 0.02;
        o.windows = 2;
        const NativeTlbFlush2Result r = run_native_tlb_flush2(o);
        EXPECT_TRUE(r.failure.empty()) << to_string(mode) << ": " << r.failure;
        EXPECT_EQ(r.window_loops_per_sec.size(), 2U);
        EXPECT_GT(r.timed_loops, 0U) << to_string(mode);
        EXPECT_EQ(r.window_cpu_share.size(), 2U) << to_string(mode);
    }
}

}  // namespace
}  // namespace ipisim::probe
