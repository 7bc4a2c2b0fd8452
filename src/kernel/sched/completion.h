// struct completion (kernel/sched/completion.c): a done count and a wait queue under a raw
// spinlock, on one simulated cache line (the waiter's stack for on-stack completions).
//
//   Completion& done = ...;  co_await wait_for_completion(sched, cpu, done);  // sleeps
//   co_await complete(sched, cpu, done);                                      // wakes it
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "hw/coherence/memory.h"
#include "kernel/sched/sched.h"

namespace ipisim::kernel {

struct Completion {
    hw::SimVar* lock = nullptr;   // x->wait.lock
    hw::SimVar* done = nullptr;   // x->done, same line
    std::deque<Thread*> waiters;  // x->wait.task_list (swait: FIFO)

    // A completion on a new line homed on `node`.
    static Completion on_new_line(hw::Memory& mem, const std::string& name, uint32_t node);
    // A completion on an existing line (two slots).
    static Completion on_line(hw::Memory& mem, hw::CacheLine& line);
};

// reinit_completion(): done = 0 (setup, no time).
void reinit_completion(Completion& x);
// The current thread on `cpu` sleeps until x is completed (TASK_UNINTERRUPTIBLE).
sim::Task<> wait_for_completion(Sched& sched, hw::Cpu& cpu, Completion& x);
// done++, wake the first waiter.
sim::Task<> complete(Sched& sched, hw::Cpu& cpu, Completion& x);

}  // namespace ipisim::kernel
