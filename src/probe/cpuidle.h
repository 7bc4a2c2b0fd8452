// The cpuidle states Linux offers and the exit latencies their drivers declare
// (/sys/devices/system/cpu/cpuN/cpuidle/stateK/{name,latency,residency,disable}). A declared
// exit latency is the worst case the governor plans with, not a measured wake time
// (docs/calibration.md). In a VM the directory is often absent: the guest idles with HLT
// (default_idle) and the hypervisor decides what that costs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ipisim::probe {

struct CpuidleState {
    std::string name;  // "POLL", "C1", "C1E", "C6", ...
    double exit_latency_us = 0;
    double target_residency_us = 0;
    bool disabled = false;
};

struct Cpuidle {
    std::string driver;  // /sys/devices/system/cpu/cpuidle/current_driver ("none", "intel_idle", ...)
    std::string governor;
    std::vector<CpuidleState> states;  // of `cpu`, shallowest first; empty: absent
    std::string absent_reason;         // why `states` is empty
};

// Reads the states of CPU `cpu` under `root` (default /sys/devices/system/cpu).
Cpuidle read_cpuidle(int cpu, const std::string& root = "/sys/devices/system/cpu");

}  // namespace ipisim::probe
