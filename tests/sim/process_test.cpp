// Processes: delays, signals, inline tasks, interrupts (during delay and wait, masked,
// nested), cancellation, exceptions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/signal.h"
#include "sim/task.h"

using namespace ipisim::sim;
using namespace ipisim::sim::literals;

namespace {

struct Log {
    std::vector<std::string> lines;
    void add(Engine& e, const std::string& what) {
        lines.push_back(std::to_string(e.now().count() / 1000) + "ns " + what);
    }
};

void interrupt_at(Engine& eng, Picos t, Process& p, uint32_t vector) {
    struct Ctx {
        Process* p;
        uint32_t vector;
    };
    // The context lives until the event fires (tests run the engine to completion).
    auto* ctx = new Ctx{&p, vector};
    eng.schedule_at(
        t,
        [](void* o, uint32_t) {
            auto* c = static_cast<Ctx*>(o);
            c->p->interrupt(Interrupt{c->vector, 0});
            delete c;
        },
        ctx, 0, 9999, Priority::Urgent);
}

}  // namespace

TEST(Process, a_delay_resumes_exactly_after_its_length) {
    Engine eng;
    Picos woke;
    auto body = [&]() -> Proc {
        co_await delay(eng, 150_ns);
        woke = eng.now();
    };
    eng.spawn("p", body());
    eng.run();
    EXPECT_EQ(woke, 150_ns);
}

TEST(Process, run_until_stops_before_later_events_and_sets_now) {
    Engine eng;
    int steps = 0;
    auto body = [&]() -> Proc {
        for (int i = 0; i < 10; ++i) {
            co_await delay(eng, 100_ns);
            ++steps;
        }
    };
    eng.spawn("p", body());
    eng.run_until(350_ns);
    EXPECT_EQ(steps, 3);
    EXPECT_EQ(eng.now(), 350_ns);
    eng.run();
    EXPECT_EQ(steps, 10);
}

TEST(Process, same_time_wakeups_run_in_fifo_order) {
    Engine eng;
    Signal sig;
    std::vector<int> order;
    auto waiter = [&](int id) -> Proc {
        co_await sig.wait();
        order.push_back(id);
    };
    for (int i = 0; i < 5; ++i) eng.spawn("w", waiter(i));
    auto notifier = [&]() -> Proc {
        co_await delay(eng, 10_ns);
        EXPECT_EQ(sig.notify_all(), 5u);
    };
    eng.spawn("n", notifier());
    eng.run();
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Process, a_notified_waiter_learns_it_was_notified_at_the_notify_time) {
    Engine eng;
    Signal sig;
    Wake w;
    Picos at;
    auto waiter = [&]() -> Proc {
        w = co_await sig.wait();
        at = eng.now();
    };
    auto notifier = [&]() -> Proc {
        co_await delay(eng, 42_ns);
        sig.notify_one();
    };
    eng.spawn("w", waiter());
    eng.spawn("n", notifier());
    eng.run();
    EXPECT_TRUE(w.notified());
    EXPECT_EQ(at, 42_ns);
}

TEST(Process, a_timed_wait_times_out_and_leaves_no_waiter_behind) {
    Engine eng;
    Signal sig;
    Wake w;
    auto waiter = [&]() -> Proc { w = co_await sig.wait_for(30_ns); };
    eng.spawn("w", waiter());
    eng.run();
    EXPECT_TRUE(w.timed_out());
    EXPECT_EQ(eng.now(), 30_ns);
    EXPECT_FALSE(sig.has_waiters());
}

TEST(Process, an_interrupt_during_a_delay_detaches_it_at_once_and_the_rest_can_be_rearmed) {
    Engine eng;
    Log log;
    Process* self = nullptr;
    auto body = [&]() -> Proc {
        Picos remaining = 1000_ns;
        while (remaining > 0_ns) {
            Picos start = eng.now();
            Wake w = co_await delay(eng, remaining);
            remaining = remaining - (eng.now() - start);
            if (w.interrupted()) {
                log.add(eng, "irq " + std::to_string(w.irq.vector));
                co_await delay(eng, 200_ns);  // the handler
            }
        }
        log.add(eng, "done");
    };
    self = &eng.spawn("cpu", body());
    interrupt_at(eng, 300_ns, *self, 7);
    eng.run();
    // 1000 ns of work + 200 ns of handler: finished late by exactly the handler time.
    EXPECT_EQ(log.lines, (std::vector<std::string>{"300ns irq 7", "1200ns done"}));
}

TEST(Process, an_interrupt_during_a_signal_wait_detaches_the_waiter) {
    Engine eng;
    Signal sig;
    Wake w;
    Picos at;
    auto body = [&]() -> Proc {
        w = co_await sig.wait();
        at = eng.now();
    };
    Process& p = eng.spawn("cpu", body());
    interrupt_at(eng, 77_ns, p, 3);
    eng.run();
    EXPECT_TRUE(w.interrupted());
    EXPECT_EQ(w.irq.vector, 3u);
    EXPECT_EQ(at, 77_ns);
    EXPECT_FALSE(sig.has_waiters());
    EXPECT_EQ(sig.notify_all(), 0u);  // no stale waiter to wake
}

TEST(Process, a_masked_interrupt_stays_pending_and_is_delivered_on_unmask) {
    Engine eng;
    Log log;
    auto body = [&]() -> Proc {
        Process* self = Process::current();
        self->mask();
        Wake w = co_await delay(eng, 500_ns);
        EXPECT_TRUE(w.timed_out());  // not detached while masked
        log.add(eng, "unmask");
        if (self->unmask()) {
            Interrupt irq = self->take_pending();
            log.add(eng, "irq " + std::to_string(irq.vector));
        }
        Wake w2 = co_await delay(eng, 100_ns);
        EXPECT_TRUE(w2.timed_out());
        log.add(eng, "done");
    };
    Process& p = eng.spawn("cpu", body());
    interrupt_at(eng, 100_ns, p, 5);
    eng.run();
    EXPECT_EQ(log.lines, (std::vector<std::string>{"500ns unmask", "500ns irq 5", "600ns done"}));
}

TEST(Process, a_wait_begun_unmasked_with_a_pending_interrupt_returns_at_once) {
    Engine eng;
    Wake w;
    Picos at;
    auto body = [&]() -> Proc {
        Process* self = Process::current();
        self->mask();
        co_await delay(eng, 50_ns);
        self->unmask();  // leave it pending
        w = co_await delay(eng, 1000_ns);
        at = eng.now();
    };
    Process& p = eng.spawn("cpu", body());
    interrupt_at(eng, 10_ns, p, 9);
    eng.run();
    EXPECT_TRUE(w.interrupted());
    EXPECT_EQ(w.irq.vector, 9u);
    EXPECT_EQ(at, 50_ns);
}

TEST(Process, nested_interrupts_preempt_a_handler_that_left_interrupts_enabled) {
    Engine eng;
    Log log;
    // A handler that runs `length` of work and itself handles interrupts arriving meanwhile.
    std::function<Task<>(uint32_t, Picos)> handler;
    handler = [&](uint32_t vector, Picos length) -> Task<> {
        log.add(eng, "enter " + std::to_string(vector));
        Picos remaining = length;
        while (remaining > 0_ns) {
            Picos start = eng.now();
            Wake w = co_await delay(eng, remaining);
            remaining = remaining - (eng.now() - start);
            if (w.interrupted()) co_await handler(w.irq.vector, 50_ns);
        }
        log.add(eng, "exit " + std::to_string(vector));
    };
    auto body = [&]() -> Proc {
        Wake w = co_await delay(eng, 1000_ns);
        if (w.interrupted()) co_await handler(w.irq.vector, 200_ns);
        log.add(eng, "thread");
    };
    Process& p = eng.spawn("cpu", body());
    interrupt_at(eng, 100_ns, p, 1);
    interrupt_at(eng, 150_ns, p, 2);
    eng.run();
    EXPECT_EQ(log.lines, (std::vector<std::string>{"100ns enter 1", "150ns enter 2", "200ns exit 2", "350ns exit 1",
                                                   "350ns thread"}));
}

TEST(Process, a_handler_that_masks_interrupts_sees_the_nested_one_after_unmasking) {
    Engine eng;
    Log log;
    auto body = [&]() -> Proc {
        Process* self = Process::current();
        Wake w = co_await delay(eng, 1000_ns);
        EXPECT_TRUE(w.interrupted());
        self->mask();  // like a hard-IRQ handler
        log.add(eng, "handler 1");
        co_await delay(eng, 200_ns);
        if (self->unmask()) log.add(eng, "handler " + std::to_string(self->take_pending().vector));
    };
    Process& p = eng.spawn("cpu", body());
    interrupt_at(eng, 100_ns, p, 1);
    interrupt_at(eng, 150_ns, p, 2);
    eng.run();
    EXPECT_EQ(log.lines, (std::vector<std::string>{"100ns handler 1", "300ns handler 2"}));
}

TEST(Process, a_cancelled_timer_leaves_no_stale_wakeup) {
    Engine eng;
    int wakeups = 0;
    auto body = [&]() -> Proc {
        Wake w = co_await delay(eng, 1000_ns);  // interrupted at 100 ns
        EXPECT_TRUE(w.interrupted());
        ++wakeups;
        w = co_await delay(eng, 2000_ns);  // must end at 2100 ns, not be woken at 1000 ns
        EXPECT_TRUE(w.timed_out());
        EXPECT_EQ(eng.now(), 2100_ns);
        ++wakeups;
    };
    Process& p = eng.spawn("cpu", body());
    interrupt_at(eng, 100_ns, p, 1);
    eng.run();
    EXPECT_EQ(wakeups, 2);
}

TEST(Process, tasks_return_values_and_nest_without_growing_the_native_stack) {
    Engine eng;
    std::function<Task<int>(int)> depth;
    depth = [&](int n) -> Task<int> {
        if (n == 0) {
            co_await delay(eng, 1_ns);
            co_return 0;
        }
        int below = co_await depth(n - 1);
        co_return below + 1;
    };
    int result = -1;
    auto body = [&]() -> Proc { result = co_await depth(20000); };
    eng.spawn("p", body());
    eng.run();
    EXPECT_EQ(result, 20000);
}

TEST(Process, a_long_chain_of_immediately_completing_tasks_does_not_overflow_the_stack) {
    Engine eng;
    auto leaf = [](int v) -> Task<int> { co_return v; };
    long sum = 0;
    auto body = [&]() -> Proc {
        for (int i = 0; i < 200000; ++i) sum += co_await leaf(1);
    };
    eng.spawn("p", body());
    eng.run();
    EXPECT_EQ(sum, 200000);
}

TEST(Process, an_exception_in_a_task_propagates_to_its_awaiter_and_out_of_run) {
    Engine eng;
    auto failing = [&]() -> Task<> {
        co_await delay(eng, 5_ns);
        throw std::runtime_error("boom");
    };
    bool caught_inside = false;
    auto body = [&]() -> Proc {
        try {
            co_await failing();
        } catch (const std::runtime_error&) {
            caught_inside = true;
        }
        co_await failing();
    };
    eng.spawn("p", body());
    EXPECT_THROW(eng.run(), std::runtime_error);
    EXPECT_TRUE(caught_inside);
}

TEST(Process, frames_of_unfinished_processes_are_destroyed_at_shutdown) {
    static int alive = 0;
    struct Guard {
        Guard() { ++alive; }
        ~Guard() { --alive; }
    };
    {
        Engine eng;
        Signal sig;
        auto inner = [&]() -> Task<> {
            Guard g;
            co_await sig.wait();
        };
        auto body = [&]() -> Proc {
            Guard g;
            co_await inner();
        };
        eng.spawn("p", body());
        eng.run();
        EXPECT_EQ(alive, 2);
        eng.shutdown();
        EXPECT_EQ(alive, 0);
    }
    EXPECT_EQ(alive, 0);
}
