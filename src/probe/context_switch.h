// Context-switch and wake-up costs: pipe ping-pong (two threads pass one byte through two
// pipes; each half round trip is a write, a wake-up, a switch and a read) on one CPU (every
// half is a context switch) and across CPUs (every half is a cross-CPU wake-up of a blocked
// thread), and the null system call.
#pragma once

#include <cstdint>
#include <vector>

#include "probe/effort.h"

namespace ipisim::probe {

// Half round-trip samples in ns (each the mean over `round_trips`). cpu_a == cpu_b: one CPU.
std::vector<double> pipe_ping_pong_ns(int cpu_a, int cpu_b, uint64_t round_trips, const Effort& effort);

// getppid() round trips on `cpu`, ns per call (each sample the mean over `calls`).
std::vector<double> null_syscall_ns(int cpu, uint64_t calls, const Effort& effort);

// Cost of reading the probe's clock (now_ns) back to back, ns (it is inside every per-call
// timing, e.g. the split of madvise and refault).
std::vector<double> clock_read_ns(int cpu, uint64_t reads, const Effort& effort);

}  // namespace ipisim::probe
