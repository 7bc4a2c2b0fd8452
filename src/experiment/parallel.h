// Independent jobs on a pool of threads: job i of n runs as fn(i) on one of `jobs` threads
// (the caller's thread is one of them), jobs are handed out in index order, and results come
// back in index order, so the outcome never depends on how many threads ran it.
//
//   std::vector<Row> rows = experiment::run_parallel<Row>(jobs, points, [&](size_t i) { return run(i); });
//
// A job that throws stops the hand-out (jobs already running finish); the exception of the
// lowest index that threw is rethrown once every thread has stopped. Jobs must not share
// mutable state (each sweep point owns its whole simulation).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace ipisim::experiment {

// The number of CPUs this process may use (at least 1): the default of --jobs.
unsigned default_jobs();

// Runs fn(0) ... fn(n-1) on min(jobs, n) threads; returns when every started job has ended.
void for_each_parallel(unsigned jobs, size_t n, const std::function<void(size_t)>& fn);

template <class R>
std::vector<R> run_parallel(unsigned jobs, size_t n, const std::function<R(size_t)>& fn) {
    std::vector<std::optional<R>> slots(n);
    for_each_parallel(jobs, n, [&](size_t i) { slots[i].emplace(fn(i)); });
    std::vector<R> out;
    out.reserve(n);
    for (std::optional<R>& r : slots) out.push_back(std::move(*r));
    return out;
}

}  // namespace ipisim::experiment
