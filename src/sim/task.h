// A coroutine awaited inline by a process (or by another task): `Task<int> f(); int x = co_await f();`
// Lazy: the body starts when awaited. Awaiting pushes the child on the current process's task
// stack and returns to the process's run loop, which resumes the child; when the child finishes
// it pops itself and the loop resumes the parent. The Task object owns the frame.
//
// g++ 12 pitfall (measured here): `if (co_await f())` / `while (co_await f())` — a co_await
// inside a condition — miscompiles: the parent frame is later resumed at an invalid suspend
// point (SIGILL at -O0, a crash at -O2). Always await into a local first:
//     const bool ok = co_await f();
//     if (ok) ...
#pragma once

#include <coroutine>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include "sim/frame_pool.h"
#include "sim/process.h"

namespace ipisim::sim {

namespace detail {

struct TaskPromiseBase {
    std::exception_ptr error;
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct FinalAwaiter {
        bool await_ready() noexcept { return false; }
        void await_suspend(std::coroutine_handle<>) noexcept { Process::current()->pop_task(); }
        void await_resume() noexcept {}
    };
    FinalAwaiter final_suspend() noexcept { return {}; }
    void unhandled_exception() { error = std::current_exception(); }
    static void* operator new(std::size_t n) { return FramePool::allocate(n); }
    static void operator delete(void* p, std::size_t n) noexcept { FramePool::deallocate(p, n); }
};

template <class T>
struct TaskPromise : TaskPromiseBase {
    std::optional<T> value;
    template <class U>
    void return_value(U&& v) {
        value.emplace(std::forward<U>(v));
    }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
    void return_void() {}
};

}  // namespace detail

template <class T = void>
class [[nodiscard]] Task {
public:
    struct promise_type : detail::TaskPromise<T> {
        Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    };
    using Handle = std::coroutine_handle<promise_type>;

    Task(Task&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    Task(const Task&) = delete;
    Task& operator=(const Task&) = delete;
    Task& operator=(Task&& o) noexcept {
        if (this != &o) {
            if (h_) h_.destroy();
            h_ = std::exchange(o.h_, nullptr);
        }
        return *this;
    }
    ~Task() {
        if (h_) h_.destroy();
    }

    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) { Process::current()->push_task(h_); }
    T await_resume() {
        auto& p = h_.promise();
        if (p.error) std::rethrow_exception(p.error);
        if constexpr (!std::is_void_v<T>) return std::move(*p.value);
    }

private:
    explicit Task(Handle h) : h_(h) {}
    Handle h_;
};

}  // namespace ipisim::sim
