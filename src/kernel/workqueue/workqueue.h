// Per-CPU workqueues (kernel/workqueue.c, system_wq's bound pools) and smp_call_on_cpu()
// (kernel/smp.c, docs/mechanisms.md §1.8).
//
// Each CPU has one worker pool with one kworker thread bound to it, created on first use and
// asleep until work arrives. queue_work_on(cpu, work) takes the target pool's lock (its cache
// line), inserts the item and, when no worker is running, wakes the kworker: a remote wake-up
// (TTWU queue, IPI or polling) when cpu is not the caller's. The kworker runs the items in
// order, then sleeps.
//
// smp_call_on_cpu(cpu, func, phys): on-stack work + completion, queue_work_on, and the caller
// sleeps in wait_for_completion(); the kworker runs func and complete()s, waking the caller. It
// goes through the kworker even when cpu is the caller's own CPU (two context switches there).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "kernel/sched/completion.h"
#include "kernel/sched/sched.h"

namespace ipisim::kernel {

struct WorkStruct {
    std::function<sim::Task<>(hw::Cpu& cpu)> func;
    bool pending = false;  // WORK_STRUCT_PENDING
};

struct WorkqueueStats {
    uint64_t queued = 0;
    uint64_t worker_wakeups = 0;
    uint64_t executed = 0;
};

class Workqueue {
public:
    explicit Workqueue(Sched& sched);
    Workqueue(const Workqueue&) = delete;
    Workqueue& operator=(const Workqueue&) = delete;

    // false if the work was already pending.
    sim::Task<bool> queue_work_on(hw::Cpu& self, hw::CpuId cpu, WorkStruct& work);
    // Returns func's result, or -ENXIO for an invalid/offline CPU. `phys` (pin the vCPU) has no
    // effect on bare metal.
    sim::Task<int> smp_call_on_cpu(hw::Cpu& self, hw::CpuId cpu, std::function<sim::Task<int>(hw::Cpu&)> func,
                                   bool phys);

    // The kworker of cpu's pool (created on first use).
    Thread& worker(hw::CpuId cpu);
    [[nodiscard]] const WorkqueueStats& stats() const { return stats_; }

private:
    struct WorkerPool {
        hw::SimVar* lock = nullptr;      // pool->lock
        hw::SimVar* worklist = nullptr;  // pool->worklist head, same line
        std::deque<WorkStruct*> items;
        Thread* worker = nullptr;
        uint32_t nr_running = 0;  // workers running (not asleep)
    };
    // The caller thread's on-stack smp_call_on_cpu_struct (one line on its stack, reused).
    struct OnStack {
        WorkStruct work;
        Completion done;
        int ret = 0;
    };

    sim::Task<> worker_thread(hw::Cpu& cpu, Thread& self);
    OnStack& on_stack(Thread& t);

    Sched& sched_;
    hw::Platform& p_;
    std::vector<WorkerPool> pools_;
    std::vector<std::unique_ptr<OnStack>> stacks_;  // by thread, lazily
    std::vector<Thread*> stack_owner_;
    WorkqueueStats stats_;
};

}  // namespace ipisim::kernel
