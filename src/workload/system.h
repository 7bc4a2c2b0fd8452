// A simulated system for one workload run: the engine, the machine profile the experiment
// names, the machine instance, and the kernel on it. Members are destroyed in reverse order,
// and the platform shuts the engine's processes down before the CPUs and memory go.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "hw/machine.h"
#include "hw/platform.h"
#include "kernel/kernel.h"
#include "sim/engine.h"
#include "workload/workload.h"

namespace ipisim::workload {

struct System {
    sim::Engine eng;
    hw::MachineSpec spec;
    std::unique_ptr<hw::Platform> platform;
    std::unique_ptr<kernel::Kernel> kernel;

    // Loads ctx.machine from ctx.machines_dir (a ConfigError if the experiment names none:
    // `workload` names the workload in the message).
    System(const RunContext& ctx, const std::string& workload);
    explicit System(hw::MachineSpec machine);
    ~System();
    System(const System&) = delete;
    System& operator=(const System&) = delete;

    [[nodiscard]] hw::Cpu& cpu(hw::CpuId c) { return platform->cpu(c); }
    [[nodiscard]] kernel::Smp& smp() { return kernel->smp(); }
    [[nodiscard]] uint32_t nr_cpus() const { return platform->nr_cpus(); }

    // Fills the engine's part of a result: fingerprint, events dispatched, simulated time.
    void record_run(RunResult& out) const;

    // Starts a fresh accounting window on every CPU (e.g. after warm-up).
    void reset_profiles();
    // Where busy CPU time went over all CPUs since the last reset, as RunResult::profile: the
    // `top` largest "function (activity)" entries with their share of non-idle time, then
    // "(other)"; idle time is left out like the swapper in a perf report of busy time.
    [[nodiscard]] nlohmann::ordered_json profile(size_t top = 12) const;

private:
    void build();
};

}  // namespace ipisim::workload
