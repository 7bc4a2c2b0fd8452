// IPI round trip through membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): the kernel sends an IPI
// to every other CPU currently running a thread of the calling process and waits until each
// has run the barrier (kernel/sched/membarrier.c: smp_call_function_many(..., wait=1)), so
// the syscall's duration is one synchronous cross-CPU call. A second thread of the process on
// the target CPU either spins (the IPI is sent: the syscall times send + delivery + handler +
// acknowledgement) or sleeps (its CPU runs the idle task, no IPI is needed: the syscall times
// only the entry and the scan of the CPUs). /proc/interrupts "CAL" deltas per call show which.
//
// The spinning target also counts its loop: its rate while the calls run against its rate in a
// quiet stretch just before gives the time each IPI takes from the code it interrupts (entry,
// handler, exit, EOI, the refill after it, and in a VM the exit and re-entry that inject it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probe/effort.h"

namespace ipisim::probe {

struct MembarrierSide {
    std::vector<double> call_ns;         // per-call duration samples (each the mean of a batch)
    std::optional<double> cal_per_call;  // function-call IPIs received (all CPUs) per call
    // Spinning target only: its time lost per call (each a batch's mean), from its loop rate.
    std::vector<double> target_lost_ns;
};

struct MembarrierResult {
    std::string skipped;  // non-empty: nothing was measured, and why (ENOSYS, EPERM, ...)
    MembarrierSide spinning;
    MembarrierSide sleeping;
};

MembarrierResult measure_membarrier(int caller_cpu, int target_cpu, uint64_t calls_per_sample, const Effort& effort);

}  // namespace ipisim::probe
