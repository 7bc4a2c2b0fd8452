#include "sim/process.h"

#include "sim/engine.h"

namespace ipisim::sim {

thread_local Process* Process::current_ = nullptr;

void Proc::promise_type::FinalAwaiter::await_suspend(std::coroutine_handle<>) noexcept {
    Process::current()->pop_task();
}

Process::Process(Engine& engine, uint32_t id, std::string name, Proc::Handle root)
    : engine_(engine), id_(id), root_(root), name_(std::move(name)) {
    stack_.reserve(8);
    top_ = root_;
}

Process::~Process() {
    destroy_frames();
}

void Process::destroy_frames() {
    detach_wait();
    stack_.clear();
    top_ = nullptr;
    if (root_) {
        // Destroying the root destroys the Task objects in its frame, and so every child frame.
        root_.destroy();
        root_ = nullptr;
    }
    state_ = State::Done;
}

Interrupt Process::take_pending() {
    Interrupt irq = pending_[pending_head_++];
    if (pending_head_ == pending_.size()) {
        pending_.clear();
        pending_head_ = 0;
    }
    return irq;
}

void Process::detach_wait() {
    if (wait_node_ != nullptr) {
        wait_node_->unlink();
        wait_node_ = nullptr;
    }
}

void Process::wake_now(WakeReason reason) {
    wait_node_ = nullptr;  // the notifier unlinked it
    state_ = State::Ready;
    wake_ = Wake{reason, {}};
    engine_.post(&Process::on_wake_event, this, ++epoch_, id_);
}

void Process::interrupt(const Interrupt& irq) {
    if (state_ == State::Done) return;
    if (mask_depth_ > 0 || state_ != State::Waiting) {
        pending_.push_back(irq);
        return;
    }
    detach_wait();
    state_ = State::Ready;
    wake_ = Wake{WakeReason::Interrupted, irq};
    engine_.post(&Process::on_wake_event, this, ++epoch_, id_);
}

void Process::on_wake_event(void* obj, uint32_t epoch) {
    auto* p = static_cast<Process*>(obj);
    if (p->epoch_ != epoch || p->state_ == State::Done) return;  // cancelled
    if (p->state_ == State::Waiting) {
        // A timer ended the wait (delay elapsed or timed wait expired).
        p->detach_wait();
        p->wake_ = Wake{};
    }
    p->resume_loop();
}

void Process::start() {
    if (state_ != State::Ready) return;
    resume_loop();
}

void Process::resume_loop() {
    Process* saved = current_;
    current_ = this;
    state_ = State::Running;
    while (state_ == State::Running && top_) top_.resume();
    current_ = saved;
    if (state_ == State::Running && !top_) {
        state_ = State::Done;
        std::exception_ptr error = root_.promise().error;
        root_.destroy();
        root_ = nullptr;
        if (error) std::rethrow_exception(error);
    }
}

}  // namespace ipisim::sim
