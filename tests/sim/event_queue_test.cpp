// The timed queue orders by (time, priority, insertion sequence), identically to a reference heap.
#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <vector>

#include "sim/calendar_queue.h"
#include "sim/engine.h"
#include "sim/rng.h"

using namespace ipisim::sim;
using namespace ipisim::sim::literals;

namespace {

Event ev(uint64_t t, Priority p, uint64_t seq, uint32_t tag) {
    return Event{t, make_key(p, seq), nullptr, nullptr, 0, tag};
}

struct Later {
    bool operator()(const Event& a, const Event& b) const { return before(b, a); }
};

}  // namespace

TEST(EventQueue, events_come_out_in_time_order) {
    CalendarQueue q;
    uint64_t seq = 0;
    for (uint64_t t : {500u, 100u, 300u, 200u, 400u}) q.push(ev(t, Priority::Normal, seq++, 0));
    std::vector<uint64_t> out;
    while (!q.empty()) out.push_back(q.pop().time);
    EXPECT_EQ(out, (std::vector<uint64_t>{100, 200, 300, 400, 500}));
}

TEST(EventQueue, same_time_events_leave_in_priority_then_insertion_order) {
    CalendarQueue q;
    q.push(ev(10, Priority::Normal, 0, 1));
    q.push(ev(10, Priority::Late, 1, 2));
    q.push(ev(10, Priority::Normal, 2, 3));
    q.push(ev(10, Priority::Urgent, 3, 4));
    q.push(ev(10, Priority::Normal, 4, 5));
    std::vector<uint32_t> tags;
    while (!q.empty()) tags.push_back(q.pop().tag);
    EXPECT_EQ(tags, (std::vector<uint32_t>{4, 1, 3, 5, 2}));
}

TEST(EventQueue, matches_a_reference_heap_under_random_interleaved_pushes_and_pops) {
    CalendarQueue q;
    std::priority_queue<Event, std::vector<Event>, Later> ref;
    Rng rng(42);
    uint64_t now = 0;
    uint64_t seq = 0;
    for (int step = 0; step < 200000; ++step) {
        const bool push = ref.empty() || rng.uniform(0, 99) < (step < 100000 ? 55 : 45);
        if (push) {
            // Mostly near-future events, some far-future timers, many exact ties.
            uint64_t dt = rng.bernoulli(0.05) ? rng.uniform(0, 10'000'000'000ULL) : rng.uniform(0, 2000) * 500;
            auto prio = static_cast<Priority>(rng.uniform(0, 2));
            Event e = ev(now + dt, prio, seq, static_cast<uint32_t>(seq));
            ++seq;
            q.push(e);
            ref.push(e);
        } else {
            Event a = q.pop();
            Event b = ref.top();
            ref.pop();
            ASSERT_EQ(a.time, b.time) << "step " << step;
            ASSERT_EQ(a.key, b.key) << "step " << step;
            now = a.time;
        }
        ASSERT_EQ(q.size(), ref.size());
    }
}

TEST(EventQueue, an_event_pushed_after_a_peek_moved_the_window_still_comes_first) {
    CalendarQueue q;
    q.push(ev(1'000'000, Priority::Normal, 0, 1));
    EXPECT_EQ(q.peek_time(), 1'000'000u);    // the window moves to t=1us
    q.push(ev(10, Priority::Normal, 1, 2));  // earlier than the window
    EXPECT_EQ(q.pop().tag, 2u);
    EXPECT_EQ(q.pop().tag, 1u);
}
