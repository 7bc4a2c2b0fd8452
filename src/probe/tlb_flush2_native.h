// Our own native implementation of will-it-scale's tlb_flush2 (docs/mechanisms.md §5), run on
// the real kernel: every task loops over a fresh 1 MiB anonymous private mapping; per page it
// writes one byte, madvise(MADV_DONTNEED)s the page, reads it back (must be 0) and counts one
// iteration; after the last page it munmaps the region and maps a new one. Threads share one
// mm (every zap is a shootdown to the other tasks' CPUs); processes (fork) have one each.
// Tasks are pinned one per core first, count into counters 256 bytes apart, and start
// together (they poll a pipe the parent writes once). The parent discards a warm-up, then
// samples the summed counters over several windows; /proc/interrupts TLB and CAL deltas over
// the timed windows are reported per iteration. The tasks' CPU time is sampled too: on a busy
// machine tasks get less than their whole CPU (other work, or the 5% the kernel keeps from
// real-time tasks), and loops per task-CPU-second says what they would do owning it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probe/summary.h"

namespace ipisim::probe {

enum class TaskMode { threads, processes };
const char* to_string(TaskMode m);

struct NativeTlbFlush2Options {
    TaskMode mode = TaskMode::threads;
    std::vector<int> cpus;  // one task per entry, pinned there
    double warmup_s = 1.0;
    double window_s = 1.0;
    int windows = 5;
};

struct NativeTlbFlush2Result {
    std::vector<double> window_loops_per_sec;  // iterations per second summed over the tasks
    Spread loops_per_sec;
    // Per window: the tasks' mean CPU time / wall time, and iterations per mean task CPU second
    // (= loops/s had every task owned its CPU). Empty if the CPU clocks cannot be read.
    std::vector<double> window_cpu_share;
    Spread cpu_share;
    std::vector<double> window_loops_per_cpu_sec;
    Spread loops_per_cpu_sec;
    uint64_t timed_loops = 0;
    std::optional<double> tlb_per_loop;  // TLB-shootdown interrupts received (all CPUs) per iteration
    std::optional<double> cal_per_loop;  // function-call interrupts per iteration
    std::string failure;                 // non-empty: what went wrong (the figures are not valid)
};

NativeTlbFlush2Result run_native_tlb_flush2(const NativeTlbFlush2Options& options);

}  // namespace ipisim::probe
