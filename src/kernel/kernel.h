// The simulated kernel on one machine: the cross-call layer and the per-CPU execution
// contexts. Each CPU runs one context process: it runs the work queued for that CPU (in order,
// to completion), and otherwise the idle loop (do_idle: enter the CPU's idle state with
// TIF_POLLING_NRFLAG published when the state polls, leave it on an interrupt or a polling
// wake-up, then flush_smp_call_function_queue()).
//
// With a scheduler (kernel/sched) installed through set_idle_task_hooks(), the context process
// is also the CPU's idle task: before entering idle it switches to a runnable thread
// (schedule_idle) and asks the cpuidle governor for the idle state. Without hooks the loop is
// exactly the plain run_on/idle loop above.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "hw/platform.h"
#include "kernel/irqchip/irqchip.h"
#include "kernel/smp/smp.h"

namespace ipisim::kernel {

using CpuWork = std::function<sim::Task<>(hw::Cpu& cpu)>;

// What the idle task asks the scheduler (kernel/sched/idle.c: do_idle, cpuidle_idle_call).
class IdleTaskHooks {
public:
    virtual ~IdleTaskHooks() = default;
    // A thread is runnable on this CPU: the idle task must schedule instead of idling.
    [[nodiscard]] virtual bool need_resched(hw::CpuId c) const = 0;
    // schedule_idle(): switches to the runnable thread; returns when the idle task runs again.
    virtual sim::Task<> schedule_idle(hw::Cpu& cpu) = 0;
    // cpuidle_select() before entering idle (may set the CPU's idle state); cpuidle_reflect()
    // once idle returned.
    virtual void cpuidle_select(hw::Cpu& cpu) = 0;
    virtual void cpuidle_reflect(hw::Cpu& cpu) = 0;
};

class Kernel {
public:
    explicit Kernel(hw::Platform& platform);
    Kernel(const Kernel&) = delete;
    Kernel& operator=(const Kernel&) = delete;

    [[nodiscard]] hw::Platform& platform() { return p_; }
    [[nodiscard]] Smp& smp() { return *smp_; }
    // The IPI driver of the machine's interrupt controller (kernel/irqchip).
    [[nodiscard]] irqchip::Irqchip& irqchip() { return *irqchip_; }

    // Queues work for CPU c. Queue before boot(), or for a CPU that is not in a non-polling
    // idle state (an idle CPU only leaves idle on an interrupt or a polling wake-up).
    void run_on(hw::CpuId c, CpuWork work);
    // Spawns the per-CPU context processes (once).
    void boot();
    // Installs the scheduler's hooks into the idle loop (nullptr: none).
    void set_idle_task_hooks(IdleTaskHooks* hooks) { hooks_ = hooks; }
    // The per-CPU context process (the idle task); nullptr before boot().
    [[nodiscard]] sim::Process* idle_task(hw::CpuId c) const { return idle_tasks_.at(c); }

private:
    sim::Proc cpu_main(hw::CpuId c);

    hw::Platform& p_;
    std::unique_ptr<irqchip::Irqchip> irqchip_;
    std::unique_ptr<Smp> smp_;
    std::vector<std::deque<CpuWork>> work_;
    std::vector<sim::Process*> idle_tasks_;
    IdleTaskHooks* hooks_ = nullptr;
    bool booted_ = false;
};

}  // namespace ipisim::kernel
