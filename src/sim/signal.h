// A condition processes wait on: `Wake w = co_await sig.wait();` until notify_one()/notify_all().
// Waiters are intrusive nodes living in the waiting coroutine's frame; wake-ups go through the
// engine's same-time ready ring in FIFO order. Waits are interruptible (see process.h).
#pragma once

#include "sim/engine.h"
#include "sim/process.h"

namespace ipisim::sim {

class Signal {
public:
    Signal() { head_.prev = head_.next = &head_; }
    ~Signal();
    Signal(const Signal&) = delete;
    Signal& operator=(const Signal&) = delete;

    [[nodiscard]] bool has_waiters() const { return head_.next != &head_; }
    [[nodiscard]] size_t waiter_count() const;

    // Wakes the oldest waiter; false if none.
    bool notify_one();
    // Wakes every waiter, oldest first; returns how many. Inline for the common case of none
    // (every write access notifies its line's waiters).
    IPISIM_INLINE size_t notify_all() { return has_waiters() ? notify_waiters() : 0; }

    struct Awaiter {
        Signal& sig;
        Picos timeout;  // Picos::max(): no timeout
        WaitNode node{};
        bool immediate = false;

        bool await_ready() {
            node.proc = Process::current();
            immediate = node.proc->interrupt_ready();
            return immediate;
        }
        void await_suspend(std::coroutine_handle<>) {
            Process* p = node.proc;
            sig.link(&node);
            const uint32_t epoch = p->begin_wait(&node);
            if (timeout != Picos::max()) {
                p->engine().schedule_in(timeout, &Process::on_wake_event, p, epoch, p->id());
            }
        }
        Wake await_resume() {
            Process* p = node.proc;
            if (immediate) return Wake{WakeReason::Interrupted, p->take_pending()};
            return p->last_wake();
        }
    };

    Awaiter wait() { return Awaiter{*this, Picos::max()}; }
    // Wake.timed_out() tells that the timeout expired first.
    Awaiter wait_for(Picos timeout) { return Awaiter{*this, timeout}; }

private:
    size_t notify_waiters();
    void link(WaitNode* n) {
        n->prev = head_.prev;
        n->next = &head_;
        head_.prev->next = n;
        head_.prev = n;
    }

    WaitNode head_;
};

// `Wake w = co_await delay(eng, 5_ns);` — a wait of fixed length. Zero length does not suspend.
// Nor does a wait that no event precedes: only an event (an interrupt) could end it early, so it
// ends in place (Engine::advance_inline: the timer's time and tag, no queue trip).
struct Delay {
    Engine& eng;
    Picos d;
    bool immediate = false;
    bool in_place = false;
    Process* p = nullptr;

    bool await_ready() {
        p = Process::current();
        immediate = p->interrupt_ready();
        if (immediate || d == Picos::zero()) return true;
        in_place = eng.advance_inline(eng.now() + d, p->id());
        return in_place;
    }
    void await_suspend(std::coroutine_handle<>) {
        const uint32_t epoch = p->begin_wait(nullptr);
        eng.schedule_in(d, &Process::on_wake_event, p, epoch, p->id());
    }
    Wake await_resume() {
        if (immediate) return Wake{WakeReason::Interrupted, p->take_pending()};
        if (d == Picos::zero() || in_place) return Wake{};
        return p->last_wake();
    }
};

inline Delay delay(Engine& eng, Picos d) {
    return Delay{eng, d};
}

}  // namespace ipisim::sim
