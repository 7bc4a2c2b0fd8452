// The store buffer (hw/coherence/store_buffer.h): x86-TSO's FIFO of stores per CPU. Exact
// timings on toy4 (CPUs 0 and 1 are cores sharing the L3: a line one owns reaches the other in
// 50 ns; l1_hit 1 ns; line occupancy 0), with [coherence] store_buffer set per test.
#include "hw/coherence/store_buffer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "sim/signal.h"
#include "support/memory_rig.h"

namespace ipisim::hw {
namespace {

using namespace sim::literals;
using sim::Picos;
using sim::Proc;

// v0, v1, v2 = 0; CPU 1 wrote them last.
struct Rig : test::MemoryRig {
    explicit Rig(uint32_t entries, uint32_t fill_buffers = 1)
        : MemoryRig({fmt::format("coherence.store_buffer={}", entries),
                     fmt::format("coherence.fill_buffers={}", fill_buffers)},
                    {0, 0, 0}) {
        prime_all(1);
    }
};

TEST(StoreBuffer, a_store_lets_the_cpu_go_on_and_becomes_visible_a_transfer_after_it_leaves) {
    Rig r(8);
    Picos stored_at = 999_ns;
    std::vector<uint64_t> seen;
    std::vector<Picos> at;
    r.eng.spawn("cpu0", [](Rig& r, Picos& at) -> Proc {
        co_await r.mem.store(0, r.v(0), 7);
        at = r.eng.now();
    }(r, stored_at));
    r.eng.spawn("cpu1", [](Rig& r, std::vector<uint64_t>& seen, std::vector<Picos>& at) -> Proc {
        for (const Picos when : {0_ns, 40_ns, 60_ns}) {
            co_await sim::delay(r.eng, when - r.eng.now());
            seen.push_back(co_await r.mem.load(1, r.v(0)));
            at.push_back(r.eng.now());
        }
    }(r, seen, at));
    r.eng.run();
    EXPECT_EQ(stored_at, 0_ns);
    // The store leaves the buffer at 1 ns and is visible when the line arrives from CPU 1, 50 ns
    // later (then written into the L1 in 1 ns): until 51 ns CPU 1 still hits on the old value;
    // its read at 60 ns misses the line CPU 0 now owns (60 + 50).
    EXPECT_EQ(seen, (std::vector<uint64_t>{0, 0, 7}));
    EXPECT_EQ(at, (std::vector<Picos>{1_ns, 41_ns, 110_ns}));
}

TEST(StoreBuffer, without_a_buffer_a_store_waits_for_its_line) {
    Rig r(0);
    Picos stored_at;
    r.eng.spawn("cpu0", [](Rig& r, Picos& at) -> Proc {
        co_await r.mem.store(0, r.v(0), 7);
        at = r.eng.now();
    }(r, stored_at));
    r.eng.run();
    EXPECT_EQ(stored_at, 50_ns);
}

TEST(StoreBuffer, a_load_of_a_buffered_variable_is_forwarded) {
    Rig r(8);
    uint64_t got = 0;
    Picos at;
    r.eng.spawn("cpu0", [](Rig& r, uint64_t& got, Picos& at) -> Proc {
        co_await r.mem.store(0, r.v(0), 7);
        co_await r.mem.store(0, r.v(0), 8);
        got = co_await r.mem.load(0, r.v(0));
        at = r.eng.now();
    }(r, got, at));
    r.eng.run();
    EXPECT_EQ(got, 8U);  // the newest buffered value
    EXPECT_EQ(at, 1_ns);
    EXPECT_EQ(r.v(0).peek(), 8U);  // both committed in order
}

// Three stores to lines CPU 1 owns, then a fence: with one fill buffer each store's RFO leaves
// at the head (1, 52, 103 ns: the fence ends at 154 ns); with two, the first two RFOs leave at
// 1 ns and the third when the first store leaves the buffer (52 ns): its line arrives at 102 ns,
// in the L1 at 103; with four, all three lines arrive at 51 ns and the stores are written one
// after another, 52, 53, 54 ns. Visibility keeps program order: at 52.5 ns (fill buffers 4)
// CPU 1 would still read v2's old value; its reservation waits until v1's has completed.
Picos drain_of_three_missing_stores(uint32_t fill_buffers, std::vector<uint64_t>* order = nullptr,
                                    uint32_t entries = 8) {
    Rig r(entries, fill_buffers);
    Picos fenced;
    r.eng.spawn("cpu0", [](Rig& r, Picos& fenced) -> Proc {
        for (size_t i = 0; i < 3; ++i) co_await r.mem.store(0, r.v(i), i + 1);
        co_await r.mem.fence(0);
        fenced = r.eng.now();
    }(r, fenced));
    if (order != nullptr) {
        // What the line order shows at 52.5 ns: v0 and v1 written, v2 not yet.
        r.eng.spawn("observer", [](Rig& r, std::vector<uint64_t>& order) -> Proc {
            co_await sim::delay(r.eng, 52'500_ps);
            for (size_t i = 0; i < 3; ++i) order.push_back(r.v(i).peek());
        }(r, *order));
    }
    r.eng.run();
    return fenced;
}

TEST(StoreBuffer, the_rfos_of_buffered_stores_overlap_up_to_the_fill_buffers) {
    EXPECT_EQ(drain_of_three_missing_stores(1), 154_ns);
    EXPECT_EQ(drain_of_three_missing_stores(2), 103_ns);
    std::vector<uint64_t> order;
    EXPECT_EQ(drain_of_three_missing_stores(4, &order), 54_ns);
    EXPECT_EQ(order, (std::vector<uint64_t>{1, 2, 0}));
}

// A store that waits for room has not issued, so its RFO waits too: with two entries and four
// fill buffers the third store enters the buffer when the first leaves it (52 ns) and its RFO
// leaves then, as with two fill buffers.
TEST(StoreBuffer, a_store_waiting_for_room_sends_its_rfo_only_once_inside) {
    EXPECT_EQ(drain_of_three_missing_stores(4, nullptr, 2), 103_ns);
}

TEST(StoreBuffer, a_byte_store_keeps_the_other_bytes_of_the_word) {
    Rig r(8);
    SimVar& w = r.v(0);
    uint64_t forwarded = 0;
    r.eng.spawn("cpu0", [](Rig& r, SimVar& w, uint64_t& forwarded) -> Proc {
        co_await r.mem.store_bytes(0, w, 0x01, 0xff);  // byte 0: visible at 51 ns
        co_await sim::delay(r.eng, 10_ns);
        forwarded = co_await r.mem.load(0, w);
    }(r, w, forwarded));
    r.eng.spawn("cpu1", [](Rig& r, SimVar& w) -> Proc {
        co_await r.mem.store_bytes(1, w, 0x0200, 0xff00);  // byte 1: CPU 1 owns the line, visible at 2 ns
    }(r, w));
    r.eng.run();
    EXPECT_EQ(forwarded, 0x0201U);  // CPU 0's byte over the word CPU 1 had already written
    EXPECT_EQ(w.peek(), 0x0201U);   // neither store lost the other's byte
}

// The store-buffering litmus test (x86-TSO's SB): CPU 0 writes x then reads y, CPU 1 writes y
// then reads x. Both reads may see 0 only with store buffers; a fence between forbids it.
struct Litmus {
    uint64_t r0 = 99;
    uint64_t r1 = 99;
};

Litmus store_buffering(uint32_t entries, bool fence) {
    Rig r(entries);
    SimVar& x = r.v(0);
    SimVar& y = r.v(1);
    x.line().prime(1);  // each CPU's store misses, each CPU's load hits
    y.line().prime(0);
    Litmus out;
    auto side = [](Rig& r, CpuId me, SimVar& mine, SimVar& other, bool fence, uint64_t& got) -> Proc {
        co_await r.mem.store(me, mine, 1);
        if (fence) co_await r.mem.fence(me);
        got = co_await r.mem.load(me, other);
    };
    r.eng.spawn("cpu0", side(r, 0, x, y, fence, out.r0));
    r.eng.spawn("cpu1", side(r, 1, y, x, fence, out.r1));
    r.eng.run();
    return out;
}

TEST(StoreBuffer, loads_pass_older_stores_unless_fenced) {
    const Litmus sb = store_buffering(8, false);
    EXPECT_EQ(sb.r0, 0U);
    EXPECT_EQ(sb.r1, 0U);
    const Litmus fenced = store_buffering(8, true);
    EXPECT_FALSE(fenced.r0 == 0 && fenced.r1 == 0);
    const Litmus none = store_buffering(0, false);
    EXPECT_FALSE(none.r0 == 0 && none.r1 == 0);
}

TEST(StoreBuffer, a_fence_and_a_locked_rmw_wait_for_the_older_stores) {
    Rig r(8);
    r.v(1).line().prime(0);  // CPU 0 owns v1: its RMW alone would be a 1 ns hit
    Picos fenced;
    Picos rmw_done;
    uint64_t old = 99;
    r.eng.spawn("cpu0", [](Rig& r, Picos& fenced, Picos& rmw_done, uint64_t& old) -> Proc {
        co_await r.mem.store(0, r.v(0), 7);  // leaves at 1 ns, visible at 51, in the L1 at 52
        co_await r.mem.fence(0);
        fenced = r.eng.now();
        co_await r.mem.store(0, r.v(2), 9);  // leaves at 53 ns, in the L1 at 104 ns
        old = co_await r.mem.fetch_add(0, r.v(1), 5);
        rmw_done = r.eng.now();
    }(r, fenced, rmw_done, old));
    r.eng.run();
    EXPECT_EQ(fenced, 52_ns);
    EXPECT_EQ(rmw_done, 105_ns);  // behind the second store, then its own 1 ns hit
    EXPECT_EQ(old, 0U);
    EXPECT_EQ(r.v(1).peek(), 5U);
}

TEST(StoreBuffer, a_full_buffer_stalls_the_next_store_until_an_entry_leaves) {
    Rig r(1);
    Picos second;
    r.eng.spawn("cpu0", [](Rig& r, Picos& second) -> Proc {
        co_await r.mem.store(0, r.v(0), 1);  // in the buffer at 0, out of it at 52 ns
        co_await r.mem.store(0, r.v(1), 2);  // waits for room
        second = r.eng.now();
        co_await r.mem.fence(0);
    }(r, second));
    r.eng.run();
    EXPECT_EQ(second, 52_ns);
    EXPECT_EQ(r.eng.now(), 103_ns);  // the second store then leaves at 52 ns, in the L1 at 103
    EXPECT_EQ(r.v(1).peek(), 2U);
}

TEST(StoreBuffer, a_spinner_wakes_when_the_store_commits_not_when_it_issues) {
    Rig r(8);
    r.v(0).line().prime(0);
    Picos seen;
    r.eng.spawn("cpu1", [](Rig& r, Picos& seen) -> Proc {
        co_await r.mem.wait_until(1, r.v(0), [](uint64_t x) { return x == 1; });
        seen = r.eng.now();
    }(r, seen));
    r.eng.spawn("cpu0", [](Rig& r) -> Proc {
        co_await sim::delay(r.eng, 100_ns);  // CPU 1 has read the line (a 50 ns miss) and sleeps on it
        co_await r.mem.store(0, r.v(0), 1);
        co_await sim::delay(r.eng, 1_us);  // CPU 0 does other work: nothing forces the drain
    }(r));
    r.eng.run();
    // Leaves at 101 ns, visible at 151 ns (an upgrade: CPU 1's copy invalidated, 50 ns), in the
    // L1 at 152 ns; CPU 1 wakes then and misses the line again: 202 ns.
    EXPECT_EQ(seen, 202_ns);
}

}  // namespace
}  // namespace ipisim::hw
