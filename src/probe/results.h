// Everything one `ipisim probe` run measured and found out, and what it skipped and why. The
// host machine file, the measurements file and the printed summary are all written from this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hw/topology.h"
#include "probe/cpuidle.h"
#include "probe/host_info.h"
#include "probe/host_topology.h"
#include "probe/placement.h"
#include "probe/summary.h"

namespace ipisim::probe {

struct Skipped {
    std::string what;  // "membarrier IPI round trip"
    std::string why;   // "membarrier(MEMBARRIER_CMD_QUERY) failed: Function not implemented"
};

// A cross-CPU step's placement check (placement.h): the caller-target line latency just
// before and after the step, against the cache-line step's median for that pair; the step is
// measured again (up to 3 times) while they disagree.
struct StepPlacement {
    std::string what;  // the step
    PlacementCheck check;
};

// One-way cache-line transfer latency of one distance class: every sample of every pair.
struct ClassLatency {
    hw::DistanceClass distance = hw::DistanceClass::same_l3;
    std::vector<std::pair<int, int>> pairs;  // CPU pairs measured
    std::vector<double> pair_medians_ns;     // per pair, in `pairs` order
    Spread one_way_ns;                       // over all samples of all pairs
    uint64_t round_trips_per_sample = 0;
};

struct MembarrierFigure {
    Spread call_ns;
    std::optional<double> cal_per_call;
    // Spinning target: the time each IPI took from it (its loop rate against a quiet stretch),
    // per IPI received when the CAL count is known, else per call; empty when not measured.
    Spread target_lost_ns;
};

struct WakeFigure {
    uint64_t idle_ns = 0;
    Spread wake_ns;
};

struct DontneedFigure {
    std::optional<int> sibling_cpu;  // a spinning thread of the process there
    Spread cycle_ns;
    Spread madvise_ns;
    Spread refault_ns;
    Spread read_back_ns;
    std::optional<double> tlb_per_op;
    std::optional<double> cal_per_op;
};

struct ProbeResults {
    std::string date;     // UTC, "2025-06-01T12:00:00Z"
    std::string command;  // as typed, "ipisim probe --quick"
    bool quick = false;
    int repeats = 0;           // samples per figure
    bool realtime = false;     // measuring threads ran SCHED_FIFO
    std::string load_average;  // /proc/loadavg when the probe started
    HostInfo info;
    HostTopology topology;
    Cpuidle cpuidle;
    int caller_cpu = 0;             // the measuring thread's CPU
    std::optional<int> target_cpu;  // the other side (another core when there is one)

    Spread core_clock_mhz;
    Spread clock_read_ns;
    std::vector<ClassLatency> cacheline;
    Spread syscall_ns;
    std::optional<MembarrierFigure> membarrier_spinning;
    std::optional<MembarrierFigure> membarrier_sleeping;
    Spread pipe_same_cpu_ns;   // half round trip
    Spread pipe_cross_cpu_ns;  // half round trip
    std::vector<WakeFigure> futex_wake;
    Spread anon_fault_ns;  // per page
    std::vector<DontneedFigure> dontneed;

    // The caller-target pair's line latency in the cache-line step (0: not measured), and the
    // checks of the steps that ran on both CPUs.
    double pair_line_ns = 0;
    std::vector<StepPlacement> placement;

    std::vector<Skipped> skipped;
};

}  // namespace ipisim::probe
