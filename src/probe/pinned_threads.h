// Runs the sides of a native measurement on threads pinned to given CPUs: every thread pins
// itself (and takes SCHED_FIFO priority 1 when probe::realtime() is on), they start together
// once all are pinned, and the caller's own affinity and policy are untouched.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace ipisim::probe {

// Calls fn(i) on a thread pinned to cpus[i], for every i, and joins them. If a thread cannot be
// pinned, no fn runs and std::runtime_error says which CPU; an exception thrown by an fn is
// rethrown here after every thread has finished.
void run_pinned(const std::vector<int>& cpus, const std::function<void(size_t)>& fn);

}  // namespace ipisim::probe
