// The simulated kernel on one machine, built from the machine and its [kernel] configuration.
// It owns every subsystem and their teardown order: the cross-call layer (Smp), and, made on
// first use, the scheduler (Sched), the workqueues, resctrl, APERF/MPERF sampling and the mm
// layer with its TLB flush protocol. Its destructor destroys the coroutine frames first (they
// reference the subsystems), then the subsystems, newest first.
//
// Each CPU runs one context process: it runs the work queued for that CPU (in order, to
// completion), and otherwise the idle loop (do_idle: enter the CPU's idle state with
// TIF_POLLING_NRFLAG published when the state watches the thread flags (a poll loop, x86
// MWAIT), leave it on an interrupt or a polling wake-up, then flush_smp_call_function_queue()).
// With the scheduler made (sched()), the context process is also the CPU's idle task: before
// entering idle it switches to a runnable thread (schedule_idle) and asks the cpuidle governor
// for the idle state.
//
// Workloads reach the machine only through this class: its size and topology (machine()), work
// on a CPU (run_on), idle states, statistics (IPIs, RAR messages) and CPU time by profile label.
//
//   kernel::Kernel& k = ...;                      // experiment::System builds it
//   k.run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> { co_await k.mm().vm_mmap(cpu, m, 1 << 20); });
//   k.boot();
//   k.engine().run_until(10_ms);
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hw/platform.h"
#include "kernel/irqchip/irqchip.h"
#include "kernel/kernel_config.h"
#include "kernel/machine_info.h"
#include "kernel/smp/smp.h"
#include "kernel/time/tick.h"

namespace ipisim::kernel {

namespace mm {
class Mm;
}
class Sched;
class Workqueue;
class Resctrl;
class Aperfmperf;

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
    explicit Kernel(hw::Platform& platform, KernelConfig config = {});
    ~Kernel();
    Kernel(const Kernel&) = delete;
    Kernel& operator=(const Kernel&) = delete;

    [[nodiscard]] hw::Platform& platform() { return p_; }
    [[nodiscard]] sim::Engine& engine() { return p_.engine(); }
    [[nodiscard]] const KernelConfig& config() const { return config_; }
    // [kernel] version (Version{} for unit tests' kernels), for version-gated behaviours.
    [[nodiscard]] Version version() const { return version_; }
    [[nodiscard]] uint32_t hz() const { return config_.hz; }
    // Every CPU's scheduler tick: TICK_NSEC at [kernel] hz, skewed with [kernel] skew_tick.
    [[nodiscard]] const TickSched& tick() const { return tick_; }
    [[nodiscard]] const MachineInfo& machine() const { return machine_; }
    [[nodiscard]] uint32_t nr_cpus() const { return p_.nr_cpus(); }
    // The IPI driver of the machine's interrupt controller (kernel/irqchip), configured from
    // config() (the GICv3 driver's barrier: [kernel] gic_barrier; the x86 IPI shorthand:
    // [kernel] no_ipi_broadcast and the version).
    [[nodiscard]] irqchip::Irqchip& irqchip() { return *irqchip_; }

    // --- subsystems (made on first use, configured from config()) ---
    [[nodiscard]] Smp& smp() { return *smp_; }
    [[nodiscard]] Sched& sched();
    // The scheduler if something made it, else nullptr (it is not made by asking).
    [[nodiscard]] Sched* sched_if_made() const { return sched_.get(); }
    [[nodiscard]] Workqueue& workqueue();
    [[nodiscard]] Resctrl& resctrl();
    [[nodiscard]] Aperfmperf& aperfmperf();
    // The mm layer with the configured flush protocol and madvise drain.
    [[nodiscard]] mm::Mm& mm();

    // --- running work ---
    // Queues work for CPU c. Queue before boot(), or for a CPU that is not in a non-polling
    // idle state (an idle CPU only leaves idle on an interrupt or a polling wake-up).
    void run_on(hw::CpuId c, CpuWork work);
    // Spawns the per-CPU context processes (once).
    void boot();
    // Installs the scheduler's hooks into the idle loop (nullptr: none).
    void set_idle_task_hooks(IdleTaskHooks* hooks) { hooks_ = hooks; }
    // The per-CPU context process (the idle task); nullptr before boot().
    [[nodiscard]] sim::Process* idle_task(hw::CpuId c) const { return idle_tasks_.at(c); }

    // --- services for workloads ---
    // Pins CPU c's idle loop to idle state `index` of machine().idle_state() (no governor).
    void set_idle_state(hw::CpuId c, size_t index);
    // The syscall entry and exit around a system call's kernel work (the machine's cpu.syscall).
    sim::Task<> syscall_entry_exit(hw::Cpu& cpu);
    // A cache-line-aligned kernel variable (a module's global) homed on `node`, and a store to it.
    hw::SimVar& new_aligned_var(const std::string& name, uint32_t node);
    sim::Task<> write_once(hw::Cpu& cpu, hw::SimVar& var, uint64_t value);
    // RAR messages the interrupt fabric delivered so far (the RAR protocols' "IPIs").
    [[nodiscard]] uint64_t rar_messages() const;
    // CPU c's time in the profile labels and activities `select` picks, up to now.
    [[nodiscard]] sim::Picos cpu_time(hw::CpuId c,
                                      const std::function<bool(const std::string& label, hw::Activity)>& select);
    // Starts a fresh profile window on every CPU (e.g. after a warm-up).
    void reset_profiles();

private:
    sim::Proc cpu_main(hw::CpuId c);

    hw::Platform& p_;
    KernelConfig config_;
    Version version_;
    MachineInfo machine_;
    TickSched tick_;
    std::unique_ptr<irqchip::Irqchip> irqchip_;
    std::unique_ptr<Smp> smp_;
    std::vector<std::deque<CpuWork>> work_;
    std::vector<sim::Process*> idle_tasks_;
    IdleTaskHooks* hooks_ = nullptr;
    bool booted_ = false;
    // Made on first use; destroyed in reverse order of these members.
    std::unique_ptr<mm::Mm> mm_;
    std::unique_ptr<Sched> sched_;
    std::unique_ptr<Workqueue> workqueue_;
    std::unique_ptr<Resctrl> resctrl_;
    std::unique_ptr<Aperfmperf> aperfmperf_;
};

}  // namespace ipisim::kernel
