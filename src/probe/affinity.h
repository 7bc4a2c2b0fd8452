// Pinning native threads to CPUs (sched_setaffinity) for the probe's measurements.
#pragma once

#include <string>
#include <vector>

namespace ipisim::probe {

// The CPUs this process may run on, ascending (sched_getaffinity).
std::vector<int> allowed_cpus();

// Binds the calling thread to one CPU. On failure returns false and sets *why.
bool pin_to_cpu(int cpu, std::string* why);

// Binds the calling thread to one CPU or throws std::runtime_error naming it (for helper
// threads whose measurement is meaningless unpinned).
void pin_or_throw(int cpu);

}  // namespace ipisim::probe
