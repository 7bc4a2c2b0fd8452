// Test support: a machine from machines/ with the simulated kernel on it: the experiment
// layer's System, with the short names the tests use (eng, spec, plat, k). The kernel owns its
// subsystems and tears them down safely; tests that add subsystems of their own derive from it,
// add their members, and call eng.shutdown() first in their destructor (coroutine frames may
// reference those subsystems).
#pragma once

#include <memory>
#include <string>

#include "experiment/system.h"
#include "hw/machine.h"
#include "support/test_machine.h"

namespace ipisim::test {

struct KernelWorld : experiment::System {
    explicit KernelWorld(const std::string& machine, kernel::KernelConfig config = {})
        : KernelWorld(load_test_machine(machine), std::move(config)) {}
    explicit KernelWorld(hw::MachineSpec machine, kernel::KernelConfig config = {})
        : System(std::move(machine), std::move(config)) {}

    sim::Engine& eng = engine();
    const hw::MachineSpec& spec = machine();
    hw::Platform* const plat = &platform();
    kernel::Kernel* const k = &kernel();
};

}  // namespace ipisim::test
