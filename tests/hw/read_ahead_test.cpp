// Memory-level parallelism (hw/coherence/read_ahead.h): a loop of independent loads with the
// out-of-order window reading ahead, up to the fill buffers. Exact timings on toy4 (CPUs 0 and 1
// are cores sharing the L3: a line CPU 1 owns reaches CPU 0 in 50 ns; l1_hit 1 ns; line
// occupancy 0), with [coherence] fill_buffers set per test.
#include "hw/coherence/read_ahead.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/machine.h"
#include "sim/engine.h"
#include "support/memory_rig.h"

namespace ipisim::hw {
namespace {

using namespace sim::literals;
using sim::Picos;
using sim::Proc;

// v_i = 10 + i; CPU 1 wrote them last.
struct Rig : test::MemoryRig {
    explicit Rig(uint32_t fill_buffers, size_t nr_vars = 3)
        : MemoryRig({fmt::format("coherence.fill_buffers={}", fill_buffers)}, counting(10, nr_vars)) {
        prime_all(1);
    }
    // CPU 0 loads v0, v1, v2 in program order through a ReadAhead; returns the values.
    Proc walk(std::vector<uint64_t>& got, std::vector<Picos>& at) {
        ReadAhead ahead(
            mem, 0, vars.size(), [this](size_t i) -> SimVar& { return *vars[i]; }, predictor);
        for (size_t i = 0; i < vars.size(); ++i) {
            ahead.before(i);
            got.push_back(co_await mem.load(0, *vars[i]));
            at.push_back(eng.now());
            ahead.after(i, false);
        }
    }

    // A loop whose entry e loads two lines, v(2e) and then v(2e + 1), as the optimized RAR wait
    // pass loads a target's action byte and then its rar_pending: loads 2e and 2e + 1 of the
    // window, the second issued ahead with the first.
    Proc walk_pairs(std::vector<Picos>& at) {
        ReadAhead ahead(
            mem, 0, vars.size(), [this](size_t j) -> SimVar& { return *vars[j]; }, predictor);
        for (size_t e = 0; 2 * e + 1 < vars.size(); ++e) {
            ahead.before(2 * e);
            co_await mem.load(0, *vars[2 * e]);
            at.push_back(eng.now());
            ahead.after(2 * e, false);
            ahead.before(2 * e + 1);
            co_await mem.load(0, *vars[2 * e + 1]);
            at.push_back(eng.now());
        }
    }

    Bimodal predictor;
};

TEST(ReadAhead, with_one_fill_buffer_the_misses_of_a_loop_add_up) {
    Rig r(1);
    std::vector<uint64_t> got;
    std::vector<Picos> at;
    r.eng.spawn("cpu0", r.walk(got, at));
    r.eng.run();
    EXPECT_EQ(at, (std::vector<Picos>{50_ns, 100_ns, 150_ns}));
    EXPECT_EQ(got, (std::vector<uint64_t>{10, 11, 12}));
}

TEST(ReadAhead, with_enough_fill_buffers_the_misses_overlap_and_the_later_loads_hit) {
    Rig r(4);
    std::vector<uint64_t> got;
    std::vector<Picos> at;
    r.eng.spawn("cpu0", r.walk(got, at));
    r.eng.run();
    // v1 and v2 were read ahead at 0 and arrived at 50 ns with v0: two L1 hits after it.
    EXPECT_EQ(at, (std::vector<Picos>{50_ns, 51_ns, 52_ns}));
    EXPECT_EQ(got, (std::vector<uint64_t>{10, 11, 12}));
    for (SimVar* v : r.vars) EXPECT_EQ(v->line().stats().transactions, 1U);
}

TEST(ReadAhead, a_loop_of_two_loads_per_entry_has_both_lines_of_the_later_entries_in_flight) {
    Rig one(1, 4);
    std::vector<Picos> serial;
    one.eng.spawn("cpu0", one.walk_pairs(serial));
    one.eng.run();
    EXPECT_EQ(serial, (std::vector<Picos>{50_ns, 100_ns, 150_ns, 200_ns}));
    // Four fill buffers: at 0 the entry's second line and both lines of the next entry are read
    // ahead (three ahead of the program-order access), all arriving at 50 ns with v0.
    Rig four(4, 4);
    std::vector<Picos> overlapped;
    four.eng.spawn("cpu0", four.walk_pairs(overlapped));
    four.eng.run();
    EXPECT_EQ(overlapped, (std::vector<Picos>{50_ns, 51_ns, 52_ns, 53_ns}));
}

TEST(ReadAhead, a_load_of_a_line_still_in_flight_waits_for_its_fill) {
    Rig r(2);  // one fill buffer ahead of the program-order access
    std::vector<uint64_t> got;
    std::vector<Picos> at;
    r.eng.spawn("cpu0", r.walk(got, at));
    r.eng.run();
    // 0: v1 read ahead (arrives 50). 50: v0 done; v1 has arrived, v2 read ahead (arrives 100).
    // 51: v1 hit. v2 is still on its way: the load merges into its fill, done at 100.
    EXPECT_EQ(at, (std::vector<Picos>{50_ns, 51_ns, 100_ns}));
}

TEST(ReadAhead, a_line_written_by_another_cpu_after_it_was_read_ahead_is_missed_again_with_the_new_value) {
    Rig r(4);
    std::vector<uint64_t> got;
    std::vector<Picos> at;
    r.eng.spawn("cpu0", r.walk(got, at));
    // CPU 1 (the owner) stores into v2 at 20 ns: an upgrade that invalidates CPU 0's copy in
    // flight, queued behind that read (50 ns) and then 50 ns for the invalidation: done at 100.
    auto writer = [&]() -> Proc {
        co_await sim::delay(r.eng, 20_ns);
        co_await r.mem.store(1, *r.vars[2], 99);
    };
    r.eng.spawn("cpu1", writer());
    r.eng.run();
    EXPECT_EQ(got, (std::vector<uint64_t>{10, 11, 99}));
    // v2 in program order at 51 ns: a miss, queued behind the store (100), from CPU 1: 150.
    EXPECT_EQ(at, (std::vector<Picos>{50_ns, 51_ns, 150_ns}));
    EXPECT_EQ(r.vars[2]->line().stats().transactions, 3U);  // read ahead, CPU 1's upgrade, the re-read
}

TEST(ReadAhead, an_entry_predicted_to_block_stops_the_window) {
    Rig r(4);
    // A blocked outcome: the 2-bit counter (1 -> 2) predicts "blocks" (a spin or a locked RMW
    // on the head's path), and no younger load is issued past it.
    r.predictor.update(true);
    ASSERT_TRUE(r.predictor.predict_taken());
    std::vector<uint64_t> got;
    std::vector<Picos> at;
    r.eng.spawn("cpu0", r.walk(got, at));
    r.eng.run();
    // 0: predicted blocking, nothing ahead; v0 at 50 trains "not blocked" (counter 2 -> 1).
    // 50: predicted running on: v2 read ahead (arrives 100) with v1's own miss; v1 at 100, v2 hit.
    EXPECT_EQ(at, (std::vector<Picos>{50_ns, 100_ns, 101_ns}));
}

TEST(ReadAhead, a_store_by_the_reading_cpu_to_a_line_in_flight_queues_behind_its_read) {
    Rig r(4);
    auto body = [&]() -> Proc {
        EXPECT_TRUE(r.mem.prefetch(0, *r.vars[0]));  // arrives at 50
        EXPECT_EQ(r.mem.fills_in_flight(0), 1U);
        co_await r.mem.store(0, *r.vars[0], 7);  // an upgrade: invalidate CPU 1 after the read
        EXPECT_EQ(r.eng.now(), 100_ns);
        EXPECT_EQ(r.mem.fills_in_flight(0), 0U);
    };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    EXPECT_EQ(r.vars[0]->peek(), 7U);
}

TEST(ReadAhead, no_more_lines_are_read_ahead_than_fill_buffers_less_the_one_in_program_order) {
    Rig r(3);
    auto body = [&]() -> Proc {
        EXPECT_TRUE(r.mem.prefetch(0, *r.vars[0]));
        EXPECT_TRUE(r.mem.prefetch(0, *r.vars[1]));
        EXPECT_FALSE(r.mem.prefetch(0, *r.vars[2]));  // both ahead buffers busy
        EXPECT_TRUE(r.mem.prefetch(0, *r.vars[0]));   // held already: nothing to issue
        co_await sim::delay(r.eng, 50_ns);
        EXPECT_TRUE(r.mem.prefetch(0, *r.vars[2]));  // the first two have arrived
    };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    EXPECT_EQ(r.vars[2]->line().stats().transactions, 1U);
}

TEST(Bimodal, is_a_two_bit_saturating_counter_starting_weakly_not_taken) {
    Bimodal b;
    EXPECT_FALSE(b.predict_taken());
    b.update(true);
    EXPECT_TRUE(b.predict_taken());
    b.update(true);
    b.update(true);
    b.update(false);
    EXPECT_TRUE(b.predict_taken());  // 3 -> 2: one surprise does not flip a strong prediction
    b.update(false);
    EXPECT_FALSE(b.predict_taken());
}

}  // namespace
}  // namespace ipisim::hw
