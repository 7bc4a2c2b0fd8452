// The simulated kernel on one machine: the cross-call layer and the per-CPU execution
// contexts. Each CPU runs one context process: it runs the work queued for that CPU (in order,
// to completion), and otherwise the idle loop (do_idle: enter the CPU's idle state with
// TIF_POLLING_NRFLAG published when the state polls, leave it on an interrupt or a polling
// wake-up, then flush_smp_call_function_queue()).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "hw/platform.h"
#include "kernel/smp/smp.h"

namespace ipisim::kernel {

using CpuWork = std::function<sim::Task<>(hw::Cpu& cpu)>;

class Kernel {
public:
    explicit Kernel(hw::Platform& platform);
    Kernel(const Kernel&) = delete;
    Kernel& operator=(const Kernel&) = delete;

    [[nodiscard]] hw::Platform& platform() { return p_; }
    [[nodiscard]] Smp& smp() { return *smp_; }

    // Queues work for CPU c. Queue before boot(), or for a CPU that is not in a non-polling
    // idle state (an idle CPU only leaves idle on an interrupt or a polling wake-up).
    void run_on(hw::CpuId c, CpuWork work);
    // Spawns the per-CPU context processes (once).
    void boot();

private:
    sim::Proc cpu_main(hw::CpuId c);

    hw::Platform& p_;
    std::unique_ptr<Smp> smp_;
    std::vector<std::deque<CpuWork>> work_;
    bool booted_ = false;
};

}  // namespace ipisim::kernel
