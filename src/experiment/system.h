// A simulated system for one run: the engine, the machine profile (shared by every point of a
// run: loaded once), the machine instance and the kernel on it, built from the machine and the
// point's [kernel] configuration. Teardown is structural: the kernel goes first (it destroys
// the coroutine frames, then its subsystems), then the machine.
//
//   experiment::System sys(machine, kernel_config);
//   sys.kernel().run_on(0, work);
//   sys.kernel().boot();
//   sys.engine().run_until(1_ms);
//
// Tests derive from it (tests/support/kernel_world.h).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "hw/machine.h"
#include "hw/platform.h"
#include "kernel/kernel.h"
#include "sim/engine.h"
#include "workload/workload.h"

namespace ipisim::experiment {

class System {
public:
    explicit System(std::shared_ptr<const hw::MachineSpec> machine, kernel::KernelConfig config = {});
    explicit System(hw::MachineSpec machine, kernel::KernelConfig config = {});
    virtual ~System();
    System(const System&) = delete;
    System& operator=(const System&) = delete;

    [[nodiscard]] sim::Engine& engine() { return eng_; }
    [[nodiscard]] const hw::MachineSpec& machine() const { return *spec_; }
    [[nodiscard]] hw::Platform& platform() { return *platform_; }
    [[nodiscard]] kernel::Kernel& kernel() { return *kernel_; }

    // Fills the engine's part of a result: fingerprint, events dispatched, simulated time.
    void record_run(workload::RunResult& out) const;
    // Where busy CPU time went over all CPUs since the last profile reset, as
    // RunResult::profile: the `top` largest "function (activity)" entries with their share of
    // non-idle time, then "(other)"; idle time is left out like the swapper in a perf report.
    [[nodiscard]] nlohmann::ordered_json profile(size_t top = 12);

private:
    sim::Engine eng_;
    std::shared_ptr<const hw::MachineSpec> spec_;
    std::unique_ptr<hw::Platform> platform_;
    std::unique_ptr<kernel::Kernel> kernel_;
};

}  // namespace ipisim::experiment
