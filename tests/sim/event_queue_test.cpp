// The timed queue orders by (time, priority, insertion sequence), identically to a reference heap,
// whichever part (wheel or heap) holds each event, and whatever the mix of time scales.
#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <vector>

#include "sim/quad_heap.h"
#include "sim/rng.h"

using namespace ipisim::sim;

namespace {

Event ev(uint64_t t, Priority p, uint64_t seq, uint32_t tag) {
    return Event{t, make_key(p, seq), nullptr, nullptr, 0, tag};
}

struct Later {
    bool operator()(const Event& a, const Event& b) const { return before(b, a); }
};

// Random interleaved pushes and pops (and peeks), checked pop by pop against std::priority_queue.
// `delay` draws the distance of a push from the current time.
template <class Queue, class Delay>
void check_against_reference(Queue& q, uint64_t seed, int steps, Delay delay) {
    std::priority_queue<Event, std::vector<Event>, Later> ref;
    Rng rng(seed);
    uint64_t now = 0;
    uint64_t seq = 0;
    for (int step = 0; step < steps; ++step) {
        const uint64_t r = rng.uniform(0, 99);
        const bool push = ref.empty() || r < (step % 20000 < 10000 ? 55 : 45);
        if (push) {
            const auto prio = static_cast<Priority>(rng.uniform(0, 2));
            const Event e = ev(now + delay(rng), prio, seq, static_cast<uint32_t>(seq));
            ++seq;
            q.push(e);
            ref.push(e);
        } else if (r < 60) {
            ASSERT_EQ(q.peek_time(), ref.top().time) << "step " << step;
        } else {
            const Event a = q.pop();
            const Event b = ref.top();
            ref.pop();
            ASSERT_EQ(a.time, b.time) << "step " << step;
            ASSERT_EQ(a.key, b.key) << "step " << step;
            now = a.time;
        }
        ASSERT_EQ(q.size(), ref.size());
    }
    while (!ref.empty()) {
        ASSERT_EQ(q.pop().key, ref.top().key);
        ref.pop();
    }
    EXPECT_TRUE(q.empty());
}

}  // namespace

TEST(EventQueue, events_come_out_in_time_order) {
    EventQueue q;
    uint64_t seq = 0;
    for (uint64_t t : {500u, 100u, 300u, 200u, 400u}) q.push(ev(t, Priority::Normal, seq++, 0));
    std::vector<uint64_t> out;
    while (!q.empty()) out.push_back(q.pop().time);
    EXPECT_EQ(out, (std::vector<uint64_t>{100, 200, 300, 400, 500}));
}

TEST(EventQueue, same_time_events_leave_in_priority_then_insertion_order) {
    EventQueue q;
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
    EventQueue q;
    // Mostly near-future events, some far-future timers, many exact ties.
    check_against_reference(q, 42, 200000, [](Rng& rng) {
        return rng.bernoulli(0.05) ? rng.uniform(0, 10'000'000'000ULL) : rng.uniform(0, 2000) * 500;
    });
}

TEST(EventQueue, matches_a_reference_heap_with_ns_deliveries_beside_10_ms_sleeps) {
    EventQueue q;
    check_against_reference(q, 7, 300000, [](Rng& rng) {
        return rng.bernoulli(0.5) ? 10'000'000'000ULL + rng.uniform(0, 1'000'000'000ULL) : rng.uniform(1000, 1'000'000);
    });
}

TEST(EventQueue, matches_a_reference_heap_when_thousands_of_events_share_one_instant) {
    // Every CPU's tick at the same picosecond, in mixed priorities: one bucket cannot hold them
    // sorted cheaply, so most go to the heap; the order stays exact.
    EventQueue q;
    check_against_reference(q, 3, 100000, [](Rng& rng) { return rng.bernoulli(0.02) ? 1'000'000'000ULL : 0; });
}

TEST(EventQueue, matches_a_reference_heap_when_the_spacing_changes_by_orders_of_magnitude) {
    EventQueue q;
    int phase = 0;
    int count = 0;
    check_against_reference(q, 11, 400000, [&](Rng& rng) {
        if (++count % 50000 == 0) phase = (phase + 1) % 4;
        const uint64_t scale[] = {10, 10'000, 10'000'000, 100};
        return rng.uniform(0, scale[phase] * 100);
    });
}

TEST(EventQueue, matches_a_reference_heap_near_the_end_of_time) {
    // Times close to 2^64 ps: the window end saturates instead of wrapping.
    EventQueue q;
    uint64_t seq = 0;
    const uint64_t top = UINT64_MAX - 1000;
    std::vector<uint64_t> times = {top, UINT64_MAX, top + 3, 5, top - (1ULL << 40), UINT64_MAX - 1};
    for (uint64_t t : times) q.push(ev(t, Priority::Normal, seq++, 0));
    std::sort(times.begin(), times.end());
    std::vector<uint64_t> out;
    while (!q.empty()) out.push_back(q.pop().time);
    EXPECT_EQ(out, times);
}

TEST(EventQueue, an_event_pushed_after_a_peek_moved_the_window_still_comes_first) {
    EventQueue q;
    q.push(ev(1'000'000, Priority::Normal, 0, 1));
    q.push(ev(1'000'001, Priority::Normal, 1, 3));
    q.pop();
    EXPECT_EQ(q.peek_time(), 1'000'001u);    // the window starts at t=1us
    q.push(ev(10, Priority::Normal, 2, 2));  // earlier than the window
    EXPECT_EQ(q.pop().tag, 2u);
    EXPECT_EQ(q.pop().tag, 3u);
}

TEST(EventQueue, a_hundred_thousand_pending_events_spread_over_the_wheel_not_the_heap) {
    // The wheel follows the number of events and their spacing: nearly all sit in buckets.
    EventQueue q;
    Rng rng(5);
    uint64_t seq = 0;
    for (int i = 0; i < 100000; ++i) q.push(ev(rng.uniform(1000, 1'000'000), Priority::Normal, seq++, 0));
    for (int i = 0; i < 200000; ++i) {
        const Event e = q.pop();
        q.push(ev(e.time + rng.uniform(1000, 1'000'000), Priority::Normal, seq++, 0));
    }
    EXPECT_EQ(q.size(), 100000u);
    EXPECT_GT(q.wheel_size(), 90000u);
    EXPECT_GE(q.bucket_count(), 32768u);
}

TEST(EventQueue, far_future_sleeps_wait_in_the_heap_while_deliveries_use_the_wheel) {
    EventQueue q;
    Rng rng(9);
    uint64_t seq = 0;
    for (uint32_t i = 0; i < 1000; ++i) {
        const uint64_t d = (i & 1) ? 10'000'000'000ULL : rng.uniform(1000, 1'000'000);
        q.push(Event{d, make_key(Priority::Normal, seq++), nullptr, nullptr, i & 1, i});
    }
    for (int i = 0; i < 100000; ++i) {
        const Event e = q.pop();
        const uint64_t d = e.arg ? 10'000'000'000ULL + rng.uniform(0, 1'000'000'000ULL) : rng.uniform(1000, 1'000'000);
        q.push(Event{e.time + d, make_key(Priority::Normal, seq++), nullptr, nullptr, e.arg, e.tag});
    }
    EXPECT_EQ(q.size(), 1000u);
    EXPECT_GE(q.wheel_size(), 490u);  // the 500 deliveries
    EXPECT_GE(q.heap_size(), 400u);   // most of the 500 sleeps
}

TEST(EventHeap, matches_a_reference_heap_under_random_interleaved_pushes_and_pops) {
    struct PeekableHeap : EventHeap {
        uint64_t peek_time() const { return top().time; }
    } q;
    check_against_reference(q, 13, 100000, [](Rng& rng) { return rng.uniform(0, 5000); });
}
