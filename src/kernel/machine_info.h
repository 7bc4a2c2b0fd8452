// What the kernel knows of the machine it runs on before it boots, as Linux learns it from the
// firmware tables and CPUID: the architecture, the CPUs and their topology, the clock, the idle
// states and the interrupt controller. Workloads check their parameters against it before any
// simulation runs (kernel::Kernel::machine() is the same view during a run).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hw/machine.h"

namespace ipisim::kernel {

class MachineInfo {
public:
    explicit MachineInfo(const hw::MachineSpec& spec) : spec_(spec) {}

    [[nodiscard]] const std::string& name() const { return spec_.name; }
    [[nodiscard]] bool x86() const { return spec_.arch == hw::Arch::x86; }
    // The interrupt controller is an Arm GICv3 (the GIC barrier of gic_ipi_send_mask applies).
    [[nodiscard]] bool gicv3() const;
    [[nodiscard]] uint32_t nr_cpus() const { return spec_.topology.nr_cpus(); }
    [[nodiscard]] const hw::Topology& topology() const { return spec_.topology; }
    // cpu_to_node()
    [[nodiscard]] uint32_t cpu_to_node(hw::CpuId c) const { return spec_.topology.node_of(c); }
    [[nodiscard]] sim::ClockDomain clock() const { return spec_.clock; }
    // The index of the idle state named `name` (cpuidle's state table), if the machine has it.
    [[nodiscard]] std::optional<size_t> idle_state(std::string_view name) const;
    // "POLL, C1, C2" for messages.
    [[nodiscard]] std::string idle_state_names() const;
    // The lowest-numbered CPU of an L3 (a resctrl monitoring domain).
    [[nodiscard]] hw::CpuId first_cpu_of_l3(uint32_t l3) const;

    // The full profile, for the kernel's own components (flush protocols check it).
    [[nodiscard]] const hw::MachineSpec& spec() const { return spec_; }

private:
    const hw::MachineSpec& spec_;
};

}  // namespace ipisim::kernel
