// The end of a memory access: `co_await AccessCompletion{eng, wait, written};` waits `wait`
// with the process's interrupts masked — an access cannot be interrupted half-way; an
// interrupt arriving meanwhile stays pending for the next interruptible wait — and then, for a
// write, wakes the spinners of the line. A zero wait does not suspend.
#pragma once

#include <coroutine>

#include "sim/engine.h"
#include "sim/process.h"
#include "sim/signal.h"

namespace ipisim::hw {

struct AccessCompletion {
    sim::Engine& eng;
    sim::Picos wait;
    sim::Signal* written;  // nullptr for a load
    sim::Process* proc = nullptr;

    bool await_ready() {
        if (wait == sim::Picos::zero()) return true;
        proc = sim::Process::current();
        proc->mask();
        return false;
    }
    void await_suspend(std::coroutine_handle<>) {
        const uint32_t epoch = proc->begin_wait(nullptr);
        eng.schedule_in(wait, &sim::Process::on_wake_event, proc, epoch, proc->id());
    }
    void await_resume() {
        if (proc != nullptr) proc->unmask();  // pending interrupts stay pending
        if (written != nullptr) written->notify_all();
    }
};

}  // namespace ipisim::hw
