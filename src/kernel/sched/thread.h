// A kernel-visible thread (task_struct): a separate sim process bound to one CPU. It executes
// only while its CPU's runqueue has it as `curr`; otherwise its process waits (with interrupts
// masked, as inside __schedule) for the switch that hands it the CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "hw/cpu/cpu.h"
#include "kernel/smp/csd.h"
#include "sim/signal.h"
#include "sim/time.h"

namespace ipisim::kernel {

class Sched;

// task->__state, reduced to what bound threads without signals need.
enum class TaskState : uint8_t {
    running,          // TASK_RUNNING: on the CPU or runnable (or being woken)
    uninterruptible,  // TASK_UNINTERRUPTIBLE: asleep until try_to_wake_up()
    dead,             // TASK_DEAD: exited
};

struct Thread;
// The thread's body, run on its CPU.
using ThreadFn = std::function<sim::Task<>(hw::Cpu& cpu, Thread& self)>;

struct Thread {
    std::string name;
    hw::CpuId cpu = 0;  // bound: cpus_ptr = {cpu}
    sim::Process* proc = nullptr;
    Sched* sched = nullptr;
    ThreadFn fn;
    uint32_t label = 0;                            // profile label of its own code
    hw::Activity activity = hw::Activity::kernel;  // user for user programs
    // task->mm as an mm id (kernel/mm: MmStruct::id); 0 for a kernel thread, which borrows the
    // previous task's mm lazily (active_mm).
    uint64_t mm = 0;

    TaskState state = TaskState::uninterruptible;
    bool on_rq = false;  // p->on_rq: current or queued on its runqueue

    // Switch-in handshake: set by the switching CPU, consumed by the thread's process.
    bool may_run = false;
    sim::Signal switched_in;

    Csd* wake_entry = nullptr;      // p->wake_entry: the TTWU node of remote wake-ups
    hw::SimVar* pi_lock = nullptr;  // p->pi_lock, a raw spinlock on a line of its own: every waker takes it

    // Accounting (perf-like: from the counter switch-in to the counter switch-out).
    sim::Picos sum_exec_runtime;
    sim::Picos exec_start;
    uint64_t nvcsw = 0;  // voluntary switches out (blocking)
    uint64_t switches_in = 0;

    // The running time including the current stint on the CPU, as of `now`.
    [[nodiscard]] sim::Picos runtime(sim::Picos now, bool on_cpu) const {
        return on_cpu ? sum_exec_runtime + (now - exec_start) : sum_exec_runtime;
    }
};

}  // namespace ipisim::kernel
