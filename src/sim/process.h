// A simulated process: a coroutine spawned on the engine, with its own stack of inline-awaited
// tasks, a wait state, and interrupts.
//
// Execution model: the engine's central run loop resumes the process; the process resumes the
// coroutine on top of its task stack until it blocks (a leaf awaitable suspended it) or the
// stack empties. Awaiting a Task pushes the child on the stack and returns to that loop; a
// finished task pops itself. No symmetric transfer, so chains of any depth use constant native
// stack (g++ 12 overflows with symmetric transfer at -O0 and under ASan).
//
// Interrupts: an interrupt delivered while the process waits with interrupts unmasked detaches
// it from the wait at once (timer cancelled by epoch, signal waiter unlinked); the wait returns
// Wake{Interrupted, irq} and the code decides how to handle it and re-arm. While masked
// (mask depth > 0) interrupts queue as pending; unmask() reports them, and a wait begun with
// interrupts unmasked and pending ones queued returns at once with the first of them.
#pragma once

#include <coroutine>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "sim/event.h"
#include "sim/frame_pool.h"
#include "sim/interrupt.h"
#include "sim/time.h"

namespace ipisim::sim {

class Engine;
class Process;
struct WaitNode;

// The return type of a process body: `Proc body(...) { ...; co_return; }`.
class Proc {
public:
    struct promise_type {
        std::exception_ptr error;
        Proc get_return_object() { return Proc(std::coroutine_handle<promise_type>::from_promise(*this)); }
        std::suspend_always initial_suspend() noexcept { return {}; }
        struct FinalAwaiter {
            bool await_ready() noexcept { return false; }
            void await_suspend(std::coroutine_handle<>) noexcept;
            void await_resume() noexcept {}
        };
        FinalAwaiter final_suspend() noexcept { return {}; }
        void return_void() {}
        void unhandled_exception() { error = std::current_exception(); }
        static void* operator new(std::size_t n) { return FramePool::allocate(n); }
        static void operator delete(void* p, std::size_t n) noexcept { FramePool::deallocate(p, n); }
    };
    using Handle = std::coroutine_handle<promise_type>;

    Proc(Proc&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
    Proc(const Proc&) = delete;
    Proc& operator=(const Proc&) = delete;
    Proc& operator=(Proc&&) = delete;
    ~Proc() {
        if (h_) h_.destroy();
    }
    Handle release() {
        Handle h = h_;
        h_ = nullptr;
        return h;
    }

private:
    explicit Proc(Handle h) : h_(h) {}
    Handle h_;
};

class Process {
public:
    enum class State : uint8_t { Ready, Running, Waiting, Done };

    Process(Engine& engine, uint32_t id, std::string name, Proc::Handle root);
    ~Process();
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    [[nodiscard]] uint32_t id() const { return id_; }
    [[nodiscard]] const std::string& name() const { return name_; }
    [[nodiscard]] State state() const { return state_; }
    [[nodiscard]] bool done() const { return state_ == State::Done; }
    [[nodiscard]] bool waiting() const { return state_ == State::Waiting; }
    [[nodiscard]] Engine& engine() const { return engine_; }

    // The process being executed right now (nullptr outside process code).
    static Process* current() { return current_; }

    // Interrupt masking (nesting depth).
    void mask() { ++mask_depth_; }
    // Returns true when this unmask reached depth 0 with interrupts pending.
    IPISIM_INLINE bool unmask() {
        if (mask_depth_ > 0) --mask_depth_;
        return mask_depth_ == 0 && has_pending();
    }
    [[nodiscard]] bool masked() const { return mask_depth_ > 0; }
    [[nodiscard]] int mask_depth() const { return mask_depth_; }
    [[nodiscard]] bool has_pending() const { return pending_head_ != pending_.size(); }
    Interrupt take_pending();
    [[nodiscard]] size_t pending_count() const { return pending_.size() - pending_head_; }

    // --- used by awaitables and the engine ---
    // Delivers an interrupt (see the class comment).
    void interrupt(const Interrupt& irq);
    // True if a wait starting now must return at once with a pending interrupt.
    [[nodiscard]] IPISIM_INLINE bool interrupt_ready() const { return mask_depth_ == 0 && has_pending(); }
    // Enters the wait state; returns the epoch that wake-up events must carry.
    IPISIM_INLINE uint32_t begin_wait(WaitNode* node) {
        state_ = State::Waiting;
        wait_node_ = node;
        wake_ = Wake{};
        return ++epoch_;
    }
    // Ends a wait from outside (signal notify): schedules the resume at the current time.
    void wake_now(WakeReason reason);
    [[nodiscard]] const Wake& last_wake() const { return wake_; }
    IPISIM_INLINE void push_task(std::coroutine_handle<> h) {
        stack_.push_back(top_);
        top_ = h;
    }
    IPISIM_INLINE void pop_task() {
        if (stack_.empty()) {
            top_ = nullptr;
        } else {
            top_ = stack_.back();
            stack_.pop_back();
        }
    }

    // Engine event entry points.
    static void on_wake_event(void* obj, uint32_t epoch);
    void start();

    // Destroys the coroutine frames (engine shutdown).
    void destroy_frames();

private:
    void resume_loop();
    void detach_wait();

    // Hot on every wake-up: kept together at the start of the object (one cache line).
    std::coroutine_handle<> top_;  // the coroutine to resume next
    Engine& engine_;
    WaitNode* wait_node_ = nullptr;
    uint32_t id_;
    uint32_t epoch_ = 0;
    int mask_depth_ = 0;
    State state_ = State::Ready;
    Wake wake_{};
    size_t pending_head_ = 0;
    std::vector<Interrupt> pending_;  // FIFO from pending_head_
    // Cold.
    std::vector<std::coroutine_handle<>> stack_;  // top_'s awaiting ancestors, root first
    Proc::Handle root_;
    std::string name_;

    static thread_local Process* current_;
};

// Intrusive waiter, owned by the awaiter object (which lives in the waiting coroutine's frame).
struct WaitNode {
    WaitNode* prev = nullptr;
    WaitNode* next = nullptr;
    Process* proc = nullptr;
    void unlink() {
        if (prev != nullptr) {
            prev->next = next;
            next->prev = prev;
            prev = next = nullptr;
        }
    }
    [[nodiscard]] bool linked() const { return prev != nullptr; }
};

}  // namespace ipisim::sim
