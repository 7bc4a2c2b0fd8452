// Engine::advance_inline: a wait that would be dispatched next ends in place, at the same time
// and with the same fingerprint as the event it replaces; anything that could happen first
// (a same-time wake-up, an earlier or equal timed event, the end of run_until) sends it to the
// queue instead.
#include <gtest/gtest.h>

#include "sim/engine.h"
#include "sim/signal.h"

using namespace ipisim::sim;
using namespace ipisim::sim::literals;

namespace {

// A process that waits 10 ns twice, either in place when possible or always as events.
Proc waits(Engine& eng, bool in_place, std::vector<bool>* done_in_place) {
    for (int i = 0; i < 2; ++i) {
        const Picos t = eng.now() + 10_ns;
        if (in_place && eng.advance_inline(t, Process::current()->id())) {
            done_in_place->push_back(true);
            continue;
        }
        done_in_place->push_back(false);
        Signal never;  // a timed wait nothing notifies: always an event (a delay may end in place)
        co_await never.wait_for(10_ns);
    }
}

}  // namespace

TEST(AdvanceInline, with_nothing_pending_the_clock_moves_in_place_and_the_fingerprint_is_the_events) {
    Engine a;
    std::vector<bool> a_in_place;
    a.spawn("p", waits(a, true, &a_in_place));
    a.run();
    Engine b;
    std::vector<bool> b_in_place;
    b.spawn("p", waits(b, false, &b_in_place));
    b.run();
    EXPECT_EQ(a_in_place, (std::vector<bool>{true, true}));
    EXPECT_EQ(a.now(), 20_ns);
    EXPECT_EQ(b.now(), 20_ns);
    EXPECT_EQ(a.fingerprint(), b.fingerprint());
    EXPECT_EQ(a.events_dispatched(), 1U);  // the start only
    EXPECT_EQ(a.inline_completions(), 2U);
    EXPECT_EQ(b.events_dispatched(), 3U);
    EXPECT_EQ(b.inline_completions(), 0U);
    EXPECT_EQ(a.events_simulated(), b.events_simulated());  // what results report
}

TEST(AdvanceInline, an_event_due_at_or_before_the_end_sends_the_wait_to_the_queue) {
    Engine eng;
    std::vector<bool> in_place;
    std::vector<Picos> other;
    auto timer = [&](Picos d) -> Proc {
        co_await delay(eng, d);
        other.push_back(eng.now());
    };
    eng.spawn("p", waits(eng, true, &in_place));
    eng.spawn("t1", timer(10_ns));  // due exactly when the first wait ends: it goes first
    eng.spawn("t2", timer(15_ns));  // due before the second wait ends
    eng.run();
    EXPECT_EQ(in_place, (std::vector<bool>{false, false}));
    EXPECT_EQ(other, (std::vector<Picos>{10_ns, 15_ns}));
    EXPECT_EQ(eng.now(), 20_ns);
    EXPECT_EQ(eng.inline_completions(), 0U);
}

TEST(AdvanceInline, a_delay_ends_in_place_unless_an_event_comes_first) {
    Engine eng;
    std::vector<Picos> ends;
    auto t = [&]() -> Proc {
        Signal never;
        co_await never.wait_for(5_ns);
    };
    auto body = [&]() -> Proc {
        const Wake w = co_await delay(eng, 10_ns);  // nothing else pending: in place
        EXPECT_TRUE(w.timed_out());
        ends.push_back(eng.now());
        eng.spawn("t", t());         // starts now, and its timer is due at 15 ns
        co_await delay(eng, 10_ns);  // so this delay, due at 20 ns, is an event
        ends.push_back(eng.now());
    };
    eng.spawn("p", body());
    eng.run();
    EXPECT_EQ(ends, (std::vector<Picos>{10_ns, 20_ns}));
    EXPECT_EQ(eng.inline_completions(), 1U);
}

TEST(AdvanceInline, a_same_time_wake_up_in_the_ready_ring_goes_first) {
    Engine eng;
    Signal sig;
    bool waiter_ran = false;
    bool in_place = true;
    auto waiter = [&]() -> Proc {
        co_await sig.wait();
        waiter_ran = true;
    };
    auto notifier = [&]() -> Proc {
        sig.notify_all();  // the waiter is now in the ready ring
        in_place = eng.advance_inline(eng.now() + 1_ns, Process::current()->id());
        co_return;
    };
    eng.spawn("w", waiter());
    eng.spawn("n", notifier());
    eng.run();
    EXPECT_FALSE(in_place);
    EXPECT_TRUE(waiter_ran);
    EXPECT_EQ(eng.now(), 0_ns);
}

TEST(AdvanceInline, run_until_is_not_overrun_and_nothing_moves_outside_a_run) {
    Engine eng;
    bool past_limit = true;
    bool at_limit = false;
    auto body = [&]() -> Proc {
        past_limit = eng.advance_inline(eng.now() + 101_ns, 0);
        at_limit = eng.advance_inline(eng.now() + 100_ns, 0);
        co_return;
    };
    eng.spawn("p", body());
    eng.run_until(100_ns);
    EXPECT_FALSE(past_limit);
    EXPECT_TRUE(at_limit);
    EXPECT_EQ(eng.now(), 100_ns);
    EXPECT_FALSE(eng.advance_inline(200_ns, 0));  // not inside run_until
    EXPECT_EQ(eng.now(), 100_ns);
}
