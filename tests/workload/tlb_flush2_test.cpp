// The tlb_flush2 workload: calibration point, determinism, threads vs processes, the kernel's
// flush protocol and madvise drain, bad params.
#include <gtest/gtest.h>

#include <string>

#include "config/error.h"
#include "support/run_workload.h"

using namespace ipisim;

namespace {

workload::RunResult run(const std::string& machine, const std::string& params_toml, uint64_t seed = 1,
                        const std::string& kernel_toml = "version = \"6.18\"\n") {
    return test::run_workload("tlb_flush2", machine, params_toml, kernel_toml, seed);
}

std::string params(int threads, const std::string& extra = "") {
    return "threads = " + std::to_string(threads) + "\nwarmup = \"1 ms\"\nmeasure = \"4 ms\"\n" + extra;
}

}  // namespace

TEST(TlbFlush2, one_thread_on_sapphire_rapids_runs_the_calibrated_175k_loops_per_second) {
    const auto r = run("sapphire_rapids_30c", params(1));
    // The fitted point (sapphire_rapids_30c cpu.handle_mm_fault), within the window's granularity.
    EXPECT_NEAR(r.metrics["loops_per_sec"].get<double>(), 175000.0, 175000.0 * 0.01);
    EXPECT_EQ(r.metrics["ipis_per_loop"].get<double>(), 0.0);
}

TEST(TlbFlush2, the_loop_count_is_deterministic_for_a_seed) {
    const auto a = run("toy8", params(4), 7);
    const auto b = run("toy8", params(4), 7);
    EXPECT_EQ(a.metrics["loops"], b.metrics["loops"]);
    EXPECT_EQ(a.fingerprint, b.fingerprint);
    const auto c = run("toy8", params(4), 8);
    EXPECT_NE(a.fingerprint, c.fingerprint);  // the start jitter comes from the seed
}

TEST(TlbFlush2, threads_share_one_mm_and_shoot_down_while_processes_flush_locally) {
    const auto t = run("toy8", params(4, "mode = \"threads\"\n"));
    const auto p = run("toy8", params(4, "mode = \"processes\"\n"));
    EXPECT_GT(t.metrics["ipis_per_loop"].get<double>(), 0.5);
    EXPECT_EQ(p.metrics["ipis_per_loop"].get<double>(), 0.0);
    EXPECT_GT(p.metrics["loops_per_sec"].get<double>(), t.metrics["loops_per_sec"].get<double>());
    EXPECT_EQ(t.metrics["stale_tlb_hits"].get<uint64_t>(), 0u);
}

// A zap that finishes while another thread's is open flushes the whole mm (mm_tlb_flush_nested,
// kernel/mm/mmu_gather.cpp): threads of one mm zap at once, processes never share a gather, and
// one thread has nobody to overlap with.
TEST(TlbFlush2, only_threads_of_one_mm_finish_a_zap_while_another_is_open) {
    const auto t = run("toy8", params(4, "mode = \"threads\"\n"));
    const auto p = run("toy8", params(4, "mode = \"processes\"\n"));
    const auto one = run("toy8", params(1, "mode = \"threads\"\n"));
    EXPECT_GT(t.metrics["nested_flush_share"].get<double>(), 0.1);
    EXPECT_LE(t.metrics["nested_flush_share"].get<double>(), 1.0);
    EXPECT_EQ(p.metrics["nested_flush_share"].get<double>(), 0.0);
    EXPECT_EQ(one.metrics["nested_flush_share"].get<double>(), 0.0);
}

// The tasks are scheduler threads: one that waits for the shared mm's mmap_lock or VMA lock
// sleeps, and its CPU's idle time is in idle_share; processes (one mm each) never wait. The
// window starts at 0 and the tasks start together: the 8 threads' first mmap()s contend at once.
TEST(TlbFlush2, threads_that_wait_for_the_shared_mms_locks_sleep_and_processes_never_do) {
    const std::string start = "threads = 8\nwarmup = \"0 ms\"\nmeasure = \"2 ms\"\nstart = \"together\"\n";
    const auto t = run("toy8", start + "mode = \"threads\"\n");
    const auto p = run("toy8", start + "mode = \"processes\"\n");
    EXPECT_GT(t.metrics["lock_sleeps_per_loop"].get<double>(), 0.0);
    EXPECT_GT(t.metrics["idle_share"].get<double>(), 0.0);
    EXPECT_EQ(p.metrics["lock_sleeps_per_loop"].get<double>(), 0.0);
    EXPECT_EQ(p.metrics["idle_share"].get<double>(), 0.0);
}

TEST(TlbFlush2, the_lkp_figures_are_per_task_and_per_second_and_the_cpu_time_splits_into_user_sys_and_idle) {
    const auto r = run("toy8", params(4, "mode = \"threads\"\n"));
    const double loops_per_sec = r.metrics["loops_per_sec"].get<double>();
    EXPECT_DOUBLE_EQ(r.metrics["loops_per_task_per_sec"].get<double>(), loops_per_sec / 4);
    EXPECT_NEAR(r.metrics["irqs_per_sec"].get<double>(), r.metrics["irqs_per_loop"].get<double>() * loops_per_sec,
                1e-6 * r.metrics["irqs_per_sec"].get<double>());
    EXPECT_GT(r.metrics["irqs_per_sec"].get<double>(), 0.0);  // the shootdown IPIs
    const double user = r.metrics["user_share"].get<double>();
    const double sys = r.metrics["sys_share"].get<double>();
    const double idle = r.metrics["idle_share"].get<double>();
    EXPECT_GT(user, 0.0);                       // the loop's own page writes
    EXPECT_GT(sys, user);                       // faults, munmap and its shootdown dominate tlb_flush2
    EXPECT_NEAR(user + sys + idle, 1.0, 1e-9);  // every task CPU picosecond of the window, once
    EXPECT_GE(sys, r.metrics["tlb_invalidation_share"].get<double>());  // flushing is kernel time
}

TEST(TlbFlush2, draining_the_lru_batch_in_madvise_takes_the_lru_lock_every_iteration) {
    const auto drain = run("toy8", params(2), 1, "version = \"6.18\"\nmadvise_lru_add_drain = false\n");
    const auto with = run("toy8", params(2), 1, "version = \"6.18\"\nmadvise_lru_add_drain = true\n");
    // Without: 3 lock rounds per 31-folio batch (6.9+); with: a drain and a release per iteration.
    EXPECT_NEAR(drain.metrics["lru_lock_rounds_per_loop"].get<double>(), 3.0 / 31, 0.01);
    EXPECT_NEAR(with.metrics["lru_lock_rounds_per_loop"].get<double>(), 2.0, 0.05);
}

TEST(TlbFlush2, the_madvise_drain_follows_the_kernel_version_by_default) {
    const auto old_kernel = run("toy8", params(2), 1, "version = \"6.13\"\n");
    const auto new_kernel = run("toy8", params(2), 1, "version = \"6.14\"\n");
    EXPECT_NEAR(old_kernel.metrics["lru_lock_rounds_per_loop"].get<double>(), 2.0, 0.05);
    EXPECT_NEAR(new_kernel.metrics["lru_lock_rounds_per_loop"].get<double>(), 3.0 / 31, 0.01);
}

TEST(TlbFlush2, an_unknown_flush_protocol_is_an_error_at_its_kernel_key_listing_the_registered_ones) {
    try {
        run("toy8", params(2), 1, "version = \"6.18\"\ntlb_flush = \"nope\"\n");
        FAIL() << "no error";
    } catch (const config::ConfigError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(e.key(), "tlb_flush");
        EXPECT_NE(msg.find("nope"), std::string::npos) << msg;
        EXPECT_NE(msg.find("\"ipi\""), std::string::npos) << msg;
    }
}

TEST(TlbFlush2, more_threads_than_cpus_is_an_error_at_threads) {
    try {
        run("toy8", params(9));
        FAIL() << "no error";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "threads");
        EXPECT_NE(std::string(e.what()).find("machine toy8 has 8 CPUs"), std::string::npos) << e.what();
    }
}

// start = "steady" (the default): every task's region is mapped before time 0 and it begins
// at a page drawn from the seed, so the tasks' munmap/mmap pairs are spread over their cycles
// as after will-it-scale's warm-up; "together" starts every task with its mmap at time 0, and
// the 8 threads' mmaps convoy on mmap_lock (sleeping, idle CPUs) before any loop runs.
TEST(TlbFlush2, a_steady_start_spreads_the_tasks_over_their_regions_and_a_start_together_convoys) {
    const std::string window = "threads = 8\nwarmup = \"0 ms\"\nmeasure = \"1 ms\"\n";
    const auto steady = run("toy8", window);
    const auto together = run("toy8", window + "start = \"together\"\n");
    EXPECT_GT(together.metrics["idle_share"].get<double>(), 2 * steady.metrics["idle_share"].get<double>());
    EXPECT_GT(steady.metrics["loops"].get<uint64_t>(), together.metrics["loops"].get<uint64_t>());
    const auto other_seed = run("toy8", window, 2);
    EXPECT_NE(steady.metrics["loops"], other_seed.metrics["loops"]);  // the phases come from the seed
}

// seed 000's rar_pending patch: a sender sends only to the targets it claimed, and a request a
// claim-holder's release leaves PENDING makes the sender loop back. Every loop-back follows at
// least one wait that gave up on PENDING (up to the calls straddling the window's start, one
// per task); naive RAR and IPI flushes report neither.
TEST(TlbFlush2, optimized_rar_loops_back_only_after_unprocessed_waits_and_the_other_protocols_never) {
    const int threads = 20;
    const auto opt =
        run("sapphire_rapids_30c", params(threads), 1, "version = \"6.18\"\ntlb_flush = \"rar-optimized\"\n");
    const auto naive =
        run("sapphire_rapids_30c", params(threads), 1, "version = \"6.18\"\ntlb_flush = \"rar-naive\"\n");
    const auto loops = static_cast<double>(opt.metrics["loops"].get<uint64_t>());
    const double backs = opt.metrics["rar_loop_backs_per_loop"].get<double>() * loops;
    const double unprocessed = opt.metrics["rar_unprocessed_per_loop"].get<double>() * loops;
    EXPECT_GT(backs, 0.0);
    EXPECT_GE(unprocessed + threads, backs);
    EXPECT_LT(opt.metrics["rar_ipis_per_loop"].get<double>(), naive.metrics["rar_ipis_per_loop"].get<double>() / 4);
    EXPECT_EQ(naive.metrics["rar_loop_backs_per_loop"].get<double>(), 0.0);
    EXPECT_EQ(naive.metrics["rar_unprocessed_per_loop"].get<double>(), 0.0);
    const auto ipi = run("toy8", params(4));
    EXPECT_EQ(ipi.metrics["rar_loop_backs_per_loop"].get<double>(), 0.0);
}

// LATR's counters: 4 threads on toy8 for 12 ms (three ticks). madvise's one-page flushes go
// lazily (the threads' munmaps fall back to IPIs: freed page tables), and each queued state
// is applied by its target at a tick or a context switch; with skew_tick the ticks are spread
// (CPU c at c x 250 us into each 4 ms jiffy) but the protocol still applies every state. The
// other protocols report zeros.
TEST(TlbFlush2, latr_reports_its_lazy_flushes_and_where_the_targets_applied_them) {
    const std::string window = "threads = 4\nwarmup = \"1 ms\"\nmeasure = \"12 ms\"\n";
    const auto aligned = run("toy8", window, 1, "version = \"6.18\"\ntlb_flush = \"latr\"\n");
    const auto skewed = run("toy8", window, 1, "version = \"6.18\"\ntlb_flush = \"latr\"\nskew_tick = true\n");
    for (const auto* r : {&aligned, &skewed}) {
        const auto& m = r->metrics;
        EXPECT_GT(m["latr_lazy_per_loop"].get<double>(), 0.5);
        const double applied =
            m["latr_applied_at_tick_per_loop"].get<double>() + m["latr_applied_at_switch_per_loop"].get<double>();
        EXPECT_GT(m["latr_applied_at_tick_per_loop"].get<double>(), 0.0);
        // Each lazy flush queues a state on each of the 3 other threads' CPUs (within the
        // states straddling the window's ends).
        EXPECT_NEAR(applied, 3 * m["latr_lazy_per_loop"].get<double>(), 0.2 * applied);
        EXPECT_EQ(m["ipis_per_loop"].get<double>() > 0, m["latr_fallbacks_per_loop"].get<double>() > 0);
    }
    EXPECT_NE(aligned.fingerprint, skewed.fingerprint);
    const auto ipi = run("toy8", params(4));
    EXPECT_EQ(ipi.metrics["latr_lazy_per_loop"].get<double>(), 0.0);
    EXPECT_EQ(ipi.metrics["latr_applied_at_tick_per_loop"].get<double>(), 0.0);
}
