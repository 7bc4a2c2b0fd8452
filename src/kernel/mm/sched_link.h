// The mm layer's side of the scheduler: what context_switch() does to the mm (switch_mm_irqs_off
// to a thread's user mm, enter_lazy_tlb for the idle task and kernel threads), and how a task
// that waits for an rw_semaphore (mmap_lock, a VMA's lock) sleeps and is woken. The kernel
// installs it into its scheduler when both exist (Kernel::sched(), Kernel::mm()); the rwsems
// ask it at each wait, so a semaphore made before the scheduler still lets tasks sleep.
#pragma once

#include "kernel/mm/rwsem.h"
#include "kernel/sched/sched.h"

namespace ipisim::kernel::mm {

class Mm;

class SchedLink final : public RwSemSleep, public MmContextSwitch {
public:
    SchedLink(Kernel& kernel, Mm& mm) : k_(kernel), mm_(mm) {}

    // RwSemSleep: the scheduler's thread on the CPU, if the scheduler exists.
    [[nodiscard]] Thread* current_task(hw::CpuId cpu) const override;
    sim::Task<> schedule(hw::Cpu& cpu) override;
    sim::Task<> wake_up_process(hw::Cpu& self, Thread& t) override;

    // MmContextSwitch
    sim::Task<> switch_mm_irqs_off(hw::Cpu& cpu, uint64_t next_mm) override;
    sim::Task<> enter_lazy_tlb(hw::Cpu& cpu) override;

    // schedule() calls of rwsem waiters so far, every semaphore of the mm layer together.
    [[nodiscard]] uint64_t sleeps() const { return sleeps_; }

private:
    Kernel& k_;
    Mm& mm_;
    uint64_t sleeps_ = 0;
};

}  // namespace ipisim::kernel::mm
