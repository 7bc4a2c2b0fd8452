// Test support: a machine from machines/ with the simulated kernel on it — engine, profile,
// platform and kernel — torn down in a safe order. Tests that need more subsystems derive
// from it, add their members, and call eng.shutdown() first in their destructor (coroutine
// frames may reference those subsystems).
#pragma once

#include <memory>
#include <string>

#include "hw/machine.h"
#include "hw/platform.h"
#include "kernel/kernel.h"
#include "sim/engine.h"

namespace ipisim::test {

inline hw::MachineSpec load_test_machine(const std::string& name) {
    return hw::load_machine(std::string(IPISIM_SOURCE_DIR) + "/machines/" + name + ".toml");
}

struct KernelWorld {
    sim::Engine eng;
    hw::MachineSpec spec;
    std::unique_ptr<hw::Platform> plat;
    std::unique_ptr<kernel::Kernel> k;

    explicit KernelWorld(const std::string& machine) : KernelWorld(load_test_machine(machine)) {}
    explicit KernelWorld(hw::MachineSpec machine) : spec(std::move(machine)) {
        plat = std::make_unique<hw::Platform>(eng, spec);
        k = std::make_unique<kernel::Kernel>(*plat);
    }
    virtual ~KernelWorld() {
        eng.shutdown();
        k.reset();
        plat.reset();
    }
    KernelWorld(const KernelWorld&) = delete;
    KernelWorld& operator=(const KernelWorld&) = delete;
};

}  // namespace ipisim::test
