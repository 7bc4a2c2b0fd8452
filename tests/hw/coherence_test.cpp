// Coherence model: cache lines with owner, sharers and home node; costs by distance and home;
// serialization of transactions on one line; spinning without polling; false sharing.
// Exact timings on the toy machines (toy4: CPUs 0,1 are cores 0,1 and 2,3 their SMT siblings,
// smt 10 ns, same_l3 50 ns, l1_hit 1 ns; toy8: 2 packages x 2 L3 x 2 cores, node n = package
// n, same_l3 50, same_die 100, cross_package 200, remote_home_extra 100, memory 100/200 ns).
#include "hw/coherence/memory.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/machine.h"
#include "sim/engine.h"
#include "sim/signal.h"
#include "support/test_machine.h"
#include "support/timed_waits.h"

namespace ipisim::hw {
namespace {

using namespace sim::literals;
using sim::Picos;
using sim::Proc;

// One simulated machine's engine and memory.
struct Rig {
    explicit Rig(MachineSpec spec) : m(std::move(spec)), mem(eng, m.topology, m.coherence) {}
    MachineSpec m;
    sim::Engine eng;
    Memory mem;
};

void interrupt_at(sim::Engine& eng, Picos t, sim::Process& p, uint32_t vector) {
    struct Ctx {
        sim::Process* p;
        uint32_t vector;
    };
    auto* ctx = new Ctx{&p, vector};  // lives until the event fires (tests run to completion)
    eng.schedule_at(
        t,
        [](void* o, uint32_t) {
            auto* c = static_cast<Ctx*>(o);
            c->p->interrupt(sim::Interrupt{c->vector, 0});
            delete c;
        },
        ctx, 0, 9999, sim::Priority::Urgent);
}

std::vector<uint64_t> ns(const std::vector<Picos>& ts) {
    std::vector<uint64_t> out;
    for (Picos t : ts) out.push_back(t.count() / 1000);
    return out;
}

TEST(Coherence, a_load_from_a_same_l3_owner_is_not_complete_at_t_minus_1_and_is_at_t) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("x", 0, 42);
    v.line().prime(0);
    uint64_t got = 0;
    bool done = false;
    auto body = [&]() -> Proc {
        got = co_await r.mem.load(1, v);
        done = true;
    };
    r.eng.spawn("cpu1", body());
    r.eng.run_until(50_ns - 1_ps);
    EXPECT_FALSE(done);
    r.eng.run_until(50_ns);
    EXPECT_TRUE(done);
    EXPECT_EQ(got, 42U);
    EXPECT_TRUE(v.line().holds(0));  // the owner keeps its copy (and ownership)
    EXPECT_TRUE(v.line().holds(1));
    EXPECT_EQ(v.line().owner(), 0U);
    EXPECT_EQ(v.line().stats().transfers[static_cast<size_t>(DistanceClass::same_l3)], 1U);
}

// CPU 0, alone on toy4, loads and then stores a line it holds exclusively; returns when each
// access ended.
std::vector<Picos> hit_load_then_store(Rig& r, SimVar& v) {
    v.line().prime(0);
    std::vector<Picos> at;
    auto body = [&]() -> Proc {
        co_await r.mem.load(0, v);
        at.push_back(r.eng.now());
        co_await r.mem.store(0, v, 5);
        at.push_back(r.eng.now());
    };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    return at;
}

TEST(Coherence, an_l1_hit_costs_l1_hit_for_loads_and_for_stores_by_the_exclusive_owner) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("x", 0);
    const std::vector<Picos> at = hit_load_then_store(r, v);
    EXPECT_EQ(at, (std::vector<Picos>{1_ns, 2_ns}));
    EXPECT_EQ(v.line().stats().hits, 2U);
    EXPECT_EQ(v.line().stats().transactions, 0U);
}

TEST(Coherence, hits_with_nothing_else_pending_end_in_place_with_the_fingerprint_of_their_events) {
    // The same accesses as above, alone on the machine: no event is dispatched for them, and
    // the run's fingerprint is that of a process waiting the same times as events.
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("x", 0);
    const std::vector<Picos> at = hit_load_then_store(r, v);
    EXPECT_EQ(at, (std::vector<Picos>{1_ns, 2_ns}));
    EXPECT_EQ(r.eng.events_dispatched(), 1U);  // the start
    EXPECT_EQ(r.eng.inline_completions(), 2U);
    const test::TimedWaitsRun events = test::run_timed_waits({1_ns, 1_ns});
    EXPECT_EQ(events.events_dispatched, 3U);
    EXPECT_EQ(r.eng.fingerprint(), events.fingerprint);
}

TEST(Coherence, a_hit_that_another_event_precedes_is_dispatched_and_masked_meanwhile) {
    // CPU 0 hits at 0 (ends at 1 ns); an interrupt is due at 0.5 ns: the hit waits as an event,
    // masked, and the interrupt stays pending for the next interruptible wait.
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("x", 0);
    v.line().prime(0);
    Picos loaded;
    sim::Wake w;
    auto body = [&]() -> Proc {
        co_await r.mem.load(0, v);
        loaded = r.eng.now();
        w = co_await sim::delay(r.eng, 100_ns);
    };
    sim::Process& p = r.eng.spawn("cpu0", body());
    interrupt_at(r.eng, 500_ps, p, 9);
    r.eng.run();
    EXPECT_EQ(loaded, 1_ns);
    EXPECT_EQ(r.eng.inline_completions(), 0U);
    EXPECT_TRUE(w.interrupted());
    EXPECT_EQ(w.irq.vector, 9U);
    EXPECT_EQ(r.eng.now(), 1_ns);
}

TEST(Coherence, a_zero_cost_hit_does_not_suspend) {
    MachineSpec m = test::load_test_machine("toy4");
    m.coherence.l1_hit = 0_ns;
    Rig r(std::move(m));
    SimVar& v = r.mem.new_aligned_var("x", 0);
    v.line().prime(0);
    uint64_t before = 0;
    uint64_t after = 0;
    auto body = [&]() -> Proc {
        before = r.eng.events_dispatched();
        co_await r.mem.store(0, v, 3);
        EXPECT_EQ(co_await r.mem.fetch_add(0, v, 1), 3U);
        co_await r.mem.load(0, v);
        after = r.eng.events_dispatched();
    };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    EXPECT_EQ(before, after);
    EXPECT_EQ(r.eng.now(), 0_ns);
    EXPECT_EQ(v.peek(), 4U);
}

TEST(Coherence, an_access_takes_effect_when_awaited_not_when_created) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("x", 0, 7);
    v.line().prime(0);
    auto body = [&]() -> Proc {
        auto store = r.mem.store(0, v, 9);  // a plain awaitable: lazy
        EXPECT_EQ(v.peek(), 7U);
        EXPECT_EQ(v.line().stats().hits, 0U);
        co_await store;
        EXPECT_EQ(v.peek(), 9U);
        EXPECT_EQ(r.eng.now(), 1_ns);
    };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    EXPECT_EQ(v.line().stats().hits, 1U);
}

TEST(Coherence, a_first_touch_is_served_by_the_home_memory_local_or_remote) {
    Rig r(test::load_test_machine("toy8"));
    SimVar& remote = r.mem.new_aligned_var("remote", 1);
    SimVar& local = r.mem.new_aligned_var("local", 0);
    SimVar& stored = r.mem.new_aligned_var("stored", 1);
    std::vector<Picos> at(3);
    auto loader = [&](SimVar& v, CpuId cpu, size_t i) -> Proc {
        co_await r.mem.load(cpu, v);
        at[i] = r.eng.now();
    };
    auto storer = [&]() -> Proc {
        co_await r.mem.store(4, stored, 1);
        at[2] = r.eng.now();
    };
    r.eng.spawn("cpu0", loader(remote, 0, 0));
    r.eng.spawn("cpu1", loader(local, 1, 1));
    r.eng.spawn("cpu4", storer());
    r.eng.run();
    EXPECT_EQ(ns(at), (std::vector<uint64_t>{200, 100, 100}));
    EXPECT_EQ(remote.line().owner(), 0U);  // a lone reader gets it exclusive (E)
    EXPECT_TRUE(remote.line().exclusive(0));
    EXPECT_EQ(r.mem.total_stats().memory_fetches, 3U);
}

TEST(Coherence, a_cross_package_transfer_of_a_remotely_homed_line_adds_remote_home_extra) {
    Rig r(test::load_test_machine("toy8"));
    SimVar& writer_homed = r.mem.new_aligned_var("writer_homed", 1);  // home with owner CPU 4
    SimVar& reader_homed = r.mem.new_aligned_var("reader_homed", 0);  // home with reader CPU 0
    writer_homed.line().prime(4);
    reader_homed.line().prime(4);
    std::vector<Picos> at(2);
    auto loader = [&](SimVar& v, size_t i) -> Proc {
        co_await r.mem.load(0, v);
        at[i] = r.eng.now();
    };
    r.eng.spawn("a", loader(writer_homed, 0));
    r.eng.spawn("b", loader(reader_homed, 1));
    r.eng.run();
    // cross_package 200; + remote_home_extra 100 when the home is not in the owner's package.
    EXPECT_EQ(ns(at), (std::vector<uint64_t>{200, 300}));
}

TEST(Coherence, a_remote_home_costs_extra_between_l3_domains_but_not_inside_one) {
    Rig r(test::load_test_machine("toy8"));
    SimVar& other_l3 = r.mem.new_aligned_var("other_l3", 1);
    SimVar& same_l3 = r.mem.new_aligned_var("same_l3", 1);
    other_l3.line().prime(2);  // CPU 2: package 0, other L3 than CPU 0
    same_l3.line().prime(1);   // CPU 1: CPU 0's L3
    std::vector<Picos> at(2);
    auto loader = [&](SimVar& v, size_t i) -> Proc {
        co_await r.mem.load(0, v);
        at[i] = r.eng.now();
    };
    r.eng.spawn("a", loader(other_l3, 0));
    r.eng.spawn("b", loader(same_l3, 1));
    r.eng.run();
    // same_die 100 + remote_home_extra 100 (Milan cross-CCD, homed on the other socket);
    // same_l3 50: the L3 resolves it without the home.
    EXPECT_EQ(ns(at), (std::vector<uint64_t>{200, 50}));
}

// Line primed by CPU 0; CPUs 1, 3, 2 (in that request order) cmpxchg(0 -> cpu+1) at t=0.
struct CmpxchgRace {
    std::vector<Picos> at = std::vector<Picos>(4);
    std::vector<uint64_t> old = std::vector<uint64_t>(4);
};

CmpxchgRace run_cmpxchg_race(Rig& r, SimVar& v) {
    CmpxchgRace race;
    v.line().prime(0);
    auto cpu = [&](CpuId c) -> Proc {
        race.old[c] = co_await r.mem.cmpxchg(c, v, 0, c + 1);
        race.at[c] = r.eng.now();
    };
    for (CpuId c : {1U, 3U, 2U}) r.eng.spawn("cpu" + std::to_string(c), cpu(c));
    r.eng.run();
    return race;
}

TEST(Coherence, n_cpus_doing_cmpxchg_on_one_line_at_once_complete_in_serialized_order) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("lock", 0);
    const CmpxchgRace race = run_cmpxchg_race(r, v);
    // CPU 1: from owner 0 (same_l3 50)              -> 0 + 50 = 50, succeeds (old 0)
    // CPU 3: waits for 50, from owner 1 (smt 10)    -> 50 + 10 = 60, fails (old 2)
    // CPU 2: waits for 60, from owner 3 (same_l3 50) -> 60 + 50 = 110, fails (old 2)
    EXPECT_EQ(ns({race.at[1], race.at[3], race.at[2]}), (std::vector<uint64_t>{50, 60, 110}));
    EXPECT_EQ(race.old[1], 0U);
    EXPECT_EQ(race.old[3], 2U);
    EXPECT_EQ(race.old[2], 2U);
    EXPECT_EQ(v.peek(), 2U);
    EXPECT_EQ(v.line().owner(), 2U);  // a failed cmpxchg still took the line
    EXPECT_EQ(v.line().stats().transactions, 3U);
    EXPECT_EQ(v.line().stats().queueing, 110_ns);  // 0 + 50 + 60
}

TEST(Coherence, line_occupancy_delays_each_next_transaction_on_the_line) {
    MachineSpec m = test::load_test_machine("toy4");
    m.coherence.line_occupancy = 5_ns;
    Rig r(std::move(m));
    SimVar& v = r.mem.new_aligned_var("lock", 0);
    const CmpxchgRace race = run_cmpxchg_race(r, v);
    // 0 + 50 = 50; (50 + 5) + 10 = 65; (65 + 5) + 50 = 120.
    EXPECT_EQ(ns({race.at[1], race.at[3], race.at[2]}), (std::vector<uint64_t>{50, 65, 120}));
}

TEST(Coherence, readers_of_a_line_already_shared_are_served_back_to_back_not_one_transfer_after_another) {
    MachineSpec m = test::load_test_machine("toy4");
    m.coherence.line_occupancy = 5_ns;
    Rig r(std::move(m));
    SimVar& v = r.mem.new_aligned_var("flag", 0);
    v.line().prime(0);
    std::vector<Picos> at(4);
    auto reader = [&](CpuId c) -> Proc {
        co_await r.mem.load(c, v);
        at[c] = r.eng.now();
    };
    auto writer = [&]() -> Proc {
        co_await sim::delay(r.eng, 1_ns);
        co_await r.mem.store(0, v, 1);
        at[0] = r.eng.now();
    };
    r.eng.spawn("cpu1", reader(1));  // snoops the only copy (CPU 0's): 0 -> 50, line busy to 55
    r.eng.spawn("cpu2", reader(2));  // shared now: starts at 55, smt 10 -> 65, line busy to 60
    r.eng.spawn("cpu3", reader(3));  // starts at 60, same_l3 50 from CPU 0 -> 110, busy to 65
    r.eng.spawn("cpu0", writer());   // at 1: queued behind the three, starts at 65; invalidates
                                     // 1 (50), 2 (smt 10), 3 (50) in parallel -> 115
    r.eng.run();
    EXPECT_EQ(ns({at[1], at[2], at[3], at[0]}), (std::vector<uint64_t>{50, 65, 110, 115}));
    EXPECT_EQ(v.line().stats().transactions, 4U);
    EXPECT_EQ(v.line().stats().queueing, 179_ns);  // 0 + 55 + 60 + (65 - 1)
}

TEST(Coherence, a_store_invalidates_sharers_so_their_next_load_misses) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("x", 0);
    v.line().prime(0);
    std::vector<Picos> at;
    auto reader = [&](CpuId c) -> Proc { co_await r.mem.load(c, v); };
    auto writer = [&]() -> Proc {
        co_await sim::delay(r.eng, 100_ns);
        co_await r.mem.store(3, v, 9);
        at.push_back(r.eng.now());
    };
    auto reader_again = [&]() -> Proc {
        co_await sim::delay(r.eng, 200_ns);
        EXPECT_EQ(co_await r.mem.load(1, v), 9U);
        at.push_back(r.eng.now());
        co_await r.mem.load(1, v);
        at.push_back(r.eng.now());
    };
    r.eng.spawn("cpu1", reader(1));  // 0 -> 50 from CPU 0 (same_l3)
    r.eng.spawn("cpu2", reader(2));  // queued: 50 -> 60 from CPU 0 (smt)
    r.eng.spawn("cpu3", writer());
    r.eng.spawn("cpu1b", reader_again());
    r.eng.run_until(99_ns);
    EXPECT_EQ(v.line().holder_count(), 3U);
    r.eng.run();
    // Store by CPU 3 at 100: invalidations to 0 (50), 1 (smt 10), 2 (50) in parallel -> 150.
    // CPU 1 at 200 misses, fetching from CPU 3 (smt 10) -> 210; then hits -> 211.
    EXPECT_EQ(ns(at), (std::vector<uint64_t>{150, 210, 211}));
    EXPECT_EQ(v.line().stats().invalidations, 3U);
    EXPECT_FALSE(v.line().holds(0));
    EXPECT_FALSE(v.line().holds(2));
}

TEST(Coherence, a_spinner_wakes_exactly_one_transfer_after_the_write_and_dispatches_nothing_while_it_waits) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& flag = r.mem.new_aligned_var("flag", 0);
    flag.line().prime(0);
    Picos woke;
    auto spinner = [&]() -> Proc {
        EXPECT_EQ(co_await r.mem.wait_until(1, flag, [](uint64_t x) { return x == 1; }), 1U);
        woke = r.eng.now();
    };
    auto writer = [&]() -> Proc {
        co_await sim::delay(r.eng, 1000_ns);
        co_await r.mem.store(0, flag, 1);  // upgrade: invalidate CPU 1 (50) -> 1050
    };
    r.eng.spawn("cpu1", spinner());
    r.eng.spawn("cpu0", writer());
    r.eng.run_until(100_ns);
    const uint64_t events = r.eng.events_dispatched();
    EXPECT_EQ(flag.line().written().waiter_count(), 1U);
    r.eng.run_until(999_ns);
    EXPECT_EQ(r.eng.events_dispatched(), events);  // no polling
    EXPECT_EQ(r.eng.pending_events(), 1U);         // only the writer's timer
    r.eng.run();
    EXPECT_EQ(woke, 1100_ns);  // woken at 1050, re-fetch from CPU 0 (same_l3 50)
}

TEST(Coherence, false_sharing_a_store_to_a_neighbour_wakes_the_spinner_which_refetches_and_spins_on) {
    Rig r(test::load_test_machine("toy4"));
    CacheLine& line = r.mem.new_line("shared", 0);
    SimVar& a = r.mem.new_var(line);
    SimVar& b = r.mem.new_var(line);
    EXPECT_EQ(b.offset(), 8U);
    line.prime(0);
    std::vector<Picos> loads;
    auto spinner = [&]() -> Proc {
        for (;;) {
            const uint64_t v = co_await r.mem.load(1, a);
            loads.push_back(r.eng.now());
            if (v == 1) break;
            co_await r.mem.wait_for_write(a);
        }
    };
    auto writer = [&]() -> Proc {
        co_await sim::delay(r.eng, 1000_ns);
        co_await r.mem.store(0, b, 7);  // 1000 -> 1050: the spinner's copy goes
        co_await sim::delay(r.eng, 950_ns);
        co_await r.mem.store(0, a, 1);  // 2000 -> 2050
    };
    r.eng.spawn("cpu1", spinner());
    r.eng.spawn("cpu0", writer());
    r.eng.run();
    EXPECT_EQ(ns(loads), (std::vector<uint64_t>{50, 1100, 2100}));
    EXPECT_EQ(line.stats().transactions, 5U);  // 3 spinner fetches + 2 writer upgrades
}

TEST(Coherence, an_interrupt_during_an_access_stays_pending_until_the_next_interruptible_wait) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("x", 0);
    v.line().prime(0);
    sim::Wake w;
    Picos loaded;
    Picos irq_at;
    auto body = [&]() -> Proc {
        co_await r.mem.load(1, v);
        loaded = r.eng.now();
        EXPECT_TRUE(sim::Process::current()->has_pending());
        w = co_await sim::delay(r.eng, 100_ns);
        irq_at = r.eng.now();
    };
    sim::Process& p = r.eng.spawn("cpu1", body());
    interrupt_at(r.eng, 10_ns, p, 7);
    r.eng.run();
    EXPECT_EQ(loaded, 50_ns);
    EXPECT_TRUE(w.interrupted());
    EXPECT_EQ(w.irq.vector, 7U);
    EXPECT_EQ(irq_at, 50_ns);
}

TEST(Coherence, spin_until_returns_on_an_interrupt_and_resumes_with_an_l1_hit) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& flag = r.mem.new_aligned_var("flag", 0);
    flag.line().prime(0);
    std::vector<Picos> at;
    auto spinner = [&]() -> Proc {
        for (;;) {
            const SpinResult s = co_await r.mem.spin_until(1, flag, [](uint64_t x) { return x != 0; });
            at.push_back(r.eng.now());
            if (s.done) break;
            EXPECT_EQ(s.wake.irq.vector, 3U);
            co_await sim::delay(r.eng, 100_ns);  // the handler
        }
    };
    auto writer = [&]() -> Proc {
        co_await sim::delay(r.eng, 1000_ns);
        co_await r.mem.store(0, flag, 1);
    };
    sim::Process& p = r.eng.spawn("cpu1", spinner());
    r.eng.spawn("cpu0", writer());
    interrupt_at(r.eng, 500_ns, p, 3);
    r.eng.run();
    // Load 0 -> 50, sleep; irq at 500; handler to 600; reload hits -> 601, sleep; store
    // 1000 -> 1050; re-fetch -> 1100.
    EXPECT_EQ(ns(at), (std::vector<uint64_t>{500, 1100}));
    EXPECT_EQ(flag.line().stats().hits, 1U);
}

TEST(Coherence, wait_until_keeps_interrupts_pending_while_it_spins) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& flag = r.mem.new_aligned_var("flag", 0);
    flag.line().prime(0);
    Picos done;
    bool pending = false;
    auto spinner = [&]() -> Proc {
        co_await r.mem.wait_until(1, flag, [](uint64_t x) { return x == 1; });
        done = r.eng.now();
        pending = sim::Process::current()->has_pending();
    };
    auto writer = [&]() -> Proc {
        co_await sim::delay(r.eng, 1000_ns);
        co_await r.mem.store(0, flag, 1);
    };
    sim::Process& p = r.eng.spawn("cpu1", spinner());
    r.eng.spawn("cpu0", writer());
    interrupt_at(r.eng, 500_ns, p, 3);
    r.eng.run();
    EXPECT_EQ(done, 1100_ns);
    EXPECT_TRUE(pending);
}

TEST(Memory, atomics_follow_the_kernel_conventions) {
    Rig r(test::load_test_machine("toy4"));
    SimVar& v = r.mem.new_aligned_var("x", 0, 10);
    v.line().prime(0);
    auto body = [&]() -> Proc {
        EXPECT_EQ(co_await r.mem.xchg(0, v, 20), 10U);
        EXPECT_EQ(co_await r.mem.cmpxchg(0, v, 5, 30), 20U);  // fails: old value returned
        EXPECT_EQ(co_await r.mem.cmpxchg(0, v, 20, 30), 20U);
        uint64_t expected = 7;
        EXPECT_FALSE(co_await r.mem.try_cmpxchg(0, v, expected, 40));
        EXPECT_EQ(expected, 30U);
        EXPECT_TRUE(co_await r.mem.try_cmpxchg(0, v, expected, 40));
        EXPECT_EQ(co_await r.mem.fetch_add(0, v, 2), 40U);
        EXPECT_EQ(co_await r.mem.fetch_or(0, v, 0x100), 42U);
        EXPECT_EQ(co_await r.mem.fetch_and(0, v, 0xff), 0x12aU);
        EXPECT_FALSE(co_await r.mem.test_and_set_bit(0, v, 63));
        EXPECT_TRUE(co_await r.mem.test_and_set_bit(0, v, 63));
        EXPECT_TRUE(co_await r.mem.test_and_clear_bit(0, v, 63));
        co_await r.mem.set_bit(0, v, 0);
        co_await r.mem.clear_bit(0, v, 1);
        EXPECT_EQ(co_await r.mem.load(0, v), 41U);
        // add_unless_any: the old value; the add only without a bit of the mask.
        EXPECT_EQ(co_await r.mem.add_unless_any(0, v, 0x100, 0x2), 41U);     // 41 = 0x29: bit 1 clear
        EXPECT_EQ(co_await r.mem.add_unless_any(0, v, 0x100, 0x1), 0x129U);  // bit 0 set: no add
        EXPECT_EQ(co_await r.mem.load(0, v), 0x129U);
        co_await r.mem.store(0, v, 41);
    };
    r.eng.spawn("cpu0", body());
    r.eng.run();
    EXPECT_EQ(r.eng.now(), 18_ns);  // 18 L1 hits
}

TEST(Memory, a_line_holds_eight_variables_at_consecutive_offsets_and_no_ninth) {
    Rig r(test::load_test_machine("toy4"));
    CacheLine& line = r.mem.new_line("csd", 0);
    for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(r.mem.new_var(line).offset(), 8 * i);
    EXPECT_THROW(r.mem.new_var(line), std::length_error);
    EXPECT_EQ(line.var_count(), 8U);
}

struct Outcome {
    uint64_t fingerprint;
    Picos end;
    uint64_t counter;
    uint64_t transactions;
};

Outcome run_contention() {
    Rig r(test::load_test_machine("toy8"));
    SimVar& counter = r.mem.new_aligned_var("counter", 1);
    SimVar& go = r.mem.new_aligned_var("go", 0);
    auto worker = [&](CpuId c) -> Proc {
        co_await r.mem.wait_until(c, go, [](uint64_t x) { return x != 0; });
        for (int i = 0; i < 20; ++i) co_await r.mem.fetch_add(c, counter, 1);
    };
    auto starter = [&]() -> Proc {
        co_await sim::delay(r.eng, 1_us);
        co_await r.mem.store(0, go, 1);
    };
    for (CpuId c = 1; c < 8; ++c) r.eng.spawn("cpu" + std::to_string(c), worker(c));
    r.eng.spawn("cpu0", starter());
    r.eng.run();
    return {r.eng.fingerprint(), r.eng.now(), counter.peek(), r.mem.total_stats().transactions};
}

TEST(Memory, the_same_accesses_give_the_same_fingerprint_and_results) {
    const Outcome a = run_contention();
    const Outcome b = run_contention();
    EXPECT_EQ(a.counter, 140U);
    EXPECT_EQ(a.fingerprint, b.fingerprint);
    EXPECT_EQ(a.end, b.end);
    EXPECT_EQ(a.transactions, b.transactions);
}

}  // namespace
}  // namespace ipisim::hw
