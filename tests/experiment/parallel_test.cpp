// experiment::run_parallel: jobs on a pool of threads, results in index order whatever the
// number of threads, and the first failure (by index) reported.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "experiment/parallel.h"

namespace ipisim::experiment {
namespace {

TEST(Parallel, results_come_back_in_index_order_for_any_number_of_threads) {
    for (unsigned jobs : {1U, 2U, 3U, 16U}) {
        const std::vector<size_t> out = run_parallel<size_t>(jobs, 50, [](size_t i) { return i * i; });
        ASSERT_EQ(out.size(), 50U);
        for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i * i) << "jobs " << jobs;
    }
}

TEST(Parallel, every_job_runs_exactly_once_on_at_most_jobs_threads) {
    std::mutex lock;
    std::multiset<size_t> ran;
    std::set<std::thread::id> threads;
    for_each_parallel(3, 40, [&](size_t i) {
        std::lock_guard<std::mutex> guard(lock);
        ran.insert(i);
        threads.insert(std::this_thread::get_id());
    });
    ASSERT_EQ(ran.size(), 40U);
    for (size_t i = 0; i < 40; ++i) EXPECT_EQ(ran.count(i), 1U);
    EXPECT_LE(threads.size(), 3U);
}

TEST(Parallel, one_job_runs_on_the_callers_thread) {
    const std::thread::id caller = std::this_thread::get_id();
    std::thread::id ran;
    for_each_parallel(8, 1, [&](size_t) { ran = std::this_thread::get_id(); });
    EXPECT_EQ(ran, caller);
}

TEST(Parallel, no_jobs_is_no_work) {
    EXPECT_TRUE(run_parallel<int>(4, 0, [](size_t) -> int { throw std::logic_error("ran"); }).empty());
}

TEST(Parallel, the_failure_of_the_lowest_index_is_rethrown_and_no_job_starts_after_it) {
    for (unsigned jobs : {1U, 2U, 4U}) {
        std::atomic<size_t> started{0};
        try {
            for_each_parallel(jobs, 1000, [&](size_t i) {
                ++started;
                if (i == 3 || i == 5) throw std::runtime_error("job " + std::to_string(i));
            });
            FAIL() << "no exception";
        } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "job 3") << "jobs " << jobs;
        }
        if (jobs == 1) {
            EXPECT_EQ(started.load(), 4U);  // 0, 1, 2, then 3 throws
        }
    }
}

TEST(Parallel, the_default_is_at_least_one_thread) {
    EXPECT_GE(default_jobs(), 1U);
}

}  // namespace
}  // namespace ipisim::experiment
