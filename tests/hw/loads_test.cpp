// Independent loads issued together (hw/coherence/loads.h): one wait, the slowest load's.
// Exact timings on toy4 (CPUs 0 and 1 are cores sharing the L3: a line CPU 1 owns reaches CPU 0
// in 50 ns; l1_hit 1 ns; line occupancy 0).
#include "hw/coherence/loads.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "sim/process.h"
#include "support/memory_rig.h"

namespace ipisim::hw {
namespace {

using namespace sim::literals;
using sim::Picos;
using sim::Proc;

// v0, v1, v2 = 10, 11, 12; lines unprimed.
struct Rig : test::MemoryRig {
    explicit Rig(uint32_t store_buffer = 0)
        : MemoryRig({fmt::format("coherence.store_buffer={}", store_buffer)}, counting(10, 3)) {}
};

TEST(Loads, a_hit_and_a_miss_together_take_the_miss_and_one_by_one_the_sum) {
    Rig r;
    r.v(0).line().prime(0);  // CPU 0's own: a hit
    r.v(1).line().prime(1);  // CPU 1 wrote it: a 50 ns transfer
    r.v(2).line().prime(1);
    std::array<uint64_t, 2> got{};
    Picos together;
    Picos apart;
    auto body = [&]() -> Proc {
        got = co_await r.mem.loads(0, &r.v(0), &r.v(1));
        together = r.eng.now();
        co_await r.mem.load(0, r.v(0));  // the same pair again, one by one: v0 hits, then
        co_await r.mem.load(0, r.v(2));  // v2, which CPU 1 owns, misses
        apart = r.eng.now() - together;
    };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    EXPECT_EQ(together, 50_ns);
    EXPECT_EQ(apart, 51_ns);
    EXPECT_EQ(got, (std::array<uint64_t, 2>{10, 11}));
    // The miss took the line as a load does: CPU 0 now holds it, beside CPU 1.
    EXPECT_TRUE(r.v(1).line().holds(0));
    EXPECT_TRUE(r.v(1).line().holds(1));
}

TEST(Loads, hits_together_end_in_place_and_a_null_entry_is_skipped) {
    Rig r;
    for (size_t i = 0; i < 3; ++i) r.v(i).line().prime(0);
    std::array<uint64_t, 3> got{};
    auto body = [&]() -> Proc { got = co_await r.mem.loads(0, &r.v(0), static_cast<SimVar*>(nullptr), &r.v(2)); };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    EXPECT_EQ(r.eng.now(), 1_ns);  // one hit's time for the group
    EXPECT_EQ(got, (std::array<uint64_t, 3>{10, 0, 12}));
    EXPECT_EQ(r.eng.events_dispatched(), 1U);  // the start: the group ended in place
    EXPECT_EQ(r.eng.inline_completions(), 1U);
}

TEST(Loads, each_load_sees_the_value_at_issue_and_a_write_that_follows_waits_for_the_group) {
    // CPU 0 loads v0 (CPU 1's: a miss) with v1 (its own: a hit) at 0; CPU 1 stores to v0 at
    // 10 ns. The group read the old value, and the store is serialized after the load's
    // transfer, as after a single load.
    Rig r;
    r.v(0).line().prime(1);
    r.v(1).line().prime(0);
    std::array<uint64_t, 2> got{};
    Picos stored;
    auto reader = [&]() -> Proc { got = co_await r.mem.loads(0, &r.v(0), &r.v(1)); };
    auto writer = [&]() -> Proc {
        co_await sim::delay(r.eng, 10_ns);
        co_await r.mem.store(1, r.v(0), 99);
        stored = r.eng.now();
    };
    r.eng.spawn("cpu0", reader());
    r.eng.spawn("cpu1", writer());
    r.eng.run();
    EXPECT_EQ(got, (std::array<uint64_t, 2>{10, 11}));
    EXPECT_GT(stored, 50_ns);
    EXPECT_EQ(r.v(0).peek(), 99U);
}

TEST(Loads, a_buffered_store_is_forwarded_to_the_group) {
    Rig r(8);
    r.v(0).line().prime(1);
    r.v(1).line().prime(1);
    std::array<uint64_t, 2> got{};
    Picos at;
    auto body = [&]() -> Proc {
        co_await r.mem.store(0, r.v(0), 7);  // buffered: the CPU goes on at once
        got = co_await r.mem.loads(0, &r.v(0), &r.v(1));
        at = r.eng.now();
    };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    EXPECT_EQ(got, (std::array<uint64_t, 2>{7, 11}));  // v0 forwarded from the buffer
    EXPECT_EQ(at, 50_ns);                              // v1's transfer
}

}  // namespace
}  // namespace ipisim::hw
