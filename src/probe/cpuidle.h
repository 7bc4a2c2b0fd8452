// The cpuidle states Linux offers and the exit latencies their drivers declare
// (/sys/devices/system/cpu/cpuN/cpuidle/stateK/{name,latency,residency,disable}). A declared
// exit latency is the worst case the governor plans with, not a measured wake time
// (docs/calibration.md). In a VM the directory is often absent: the guest idles with HLT
// (default_idle) and the hypervisor decides what that costs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hw/machine.h"

namespace ipisim::probe {

struct CpuidleState {
    std::string name;  // "POLL", "C1", "C1E", "C6", ...
    double exit_latency_us = 0;
    double target_residency_us = 0;
    bool disabled = false;
    // How the driver enters it: "CPUIDLE CORE POLL IDLE", "MWAIT 0x00" (intel_idle),
    // "ACPI FFH MWAIT 0x0", "ACPI HLT", "ACPI IOPORT 0x814" (acpi_idle), "ARM WFI", ...
    std::string desc;
};

struct Cpuidle {
    std::string driver;  // /sys/devices/system/cpu/cpuidle/current_driver ("none", "intel_idle", ...)
    std::string governor;
    std::vector<CpuidleState> states;  // of `cpu`, shallowest first; empty: absent
    std::string absent_reason;         // why `states` is empty
};

// Reads the states of CPU `cpu` under `root` (default /sys/devices/system/cpu).
Cpuidle read_cpuidle(int cpu, const std::string& root = "/sys/devices/system/cpu");

// The machine file's [[idle]] mechanism of a state, from its name and description: POLL (the
// first state only) polls, an MWAIT description (intel_idle, acpi_idle FFH) is mwait, "IOPORT"
// ioport; on arm64 a "WFI" description is wfi and any other state psci (entered through
// PSCI CPU_SUSPEND); on x86 every other state is HLT (also the choice for a description naming
// none of these: a wake-up by interrupt only, the conservative reading).
hw::IdleMechanism idle_mechanism(const CpuidleState& s, bool first, hw::Arch arch);

}  // namespace ipisim::probe
