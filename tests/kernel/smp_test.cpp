// Cross-call protocol scenarios on toy machines with exact expected times.
//
// toy2 (machines/toy2.toml): 1 GHz (1 cycle = 1 ns), l1_hit 1 ns, same-L3 transfer 50 ns,
// memory 100 ns; IRQ entry 200, EOI 50, exit 100 ns; C1 exit 1 us; x2APIC phys: fence 50 ns +
// ICR write 100 ns, fabric delivery 500 ns. Kernel path costs (kernel/costs.h, cycles):
// smp_call_function_single 60, flush setup 60 + 25 per node, do_idle exit 150.
#include <gtest/gtest.h>

#include <string>

#include "hw/platform.h"
#include "kernel/costs.h"
#include "kernel/kernel.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using sim::Picos;

namespace {

struct World : test::KernelWorld {
    using KernelWorld::KernelWorld;
};

kernel::SmpCallFunc empty_func(int* calls = nullptr) {
    return [calls](Cpu& c) -> sim::Task<> {
        if (calls != nullptr) ++*calls;
        co_await c.compute_cycles(kernel::costs::empty_function);
    };
}

}  // namespace

TEST(Smp, a_sync_single_call_round_trip_is_the_sum_of_its_steps) {
    World w("toy2");
    w.plat->cpu(1).set_idle_state(1);  // C1: 1 us exit latency
    std::vector<Picos> durations;
    int calls = 0;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        for (int i = 0; i < 3; ++i) {
            Picos start = w.eng.now();
            int err = co_await w.k->smp().smp_call_function_single(cpu, 1, empty_func(&calls), true);
            EXPECT_EQ(err, 0);
            durations.push_back(w.eng.now() - start);
            co_await cpu.compute(10_us);  // let CPU 1 go back to idle
        }
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    ASSERT_EQ(durations.size(), 3u);
    // Warm lines (calls 2 and 3), from the call's start on CPU 0:
    //    60  smp_call_function_single path
    //  + 50  store CSD flags (CPU 0 shares the line with CPU 1, which unlocked it: upgrade)
    //  +  1  store func/info (hit)
    //  + 50  llist_add: fetch_add on CPU 1's queue head (owned by CPU 1 after its xchg)
    //  +  1  load CPU 1's idle thread flags (shared, hit): not polling
    //  + 150 x2APIC send: fence 50 + ICR write 100; the message leaves at 312
    //  + 500 fabric delivery -> 812
    //  + 1000 C1 exit, + 200 IRQ entry, + 50 EOI -> 2062
    //  + 50  xchg of the queue head (owned by CPU 0), + 85 flush (60 + 25 per node) -> 2197
    //  + 50  load CSD flags and func together (one line, owned by CPU 0), + 5 empty callback
    //        -> 2252
    //  + 50  unlock store (upgrade, invalidates CPU 0) -> 2302: the spinner wakes
    //  + 50  the spinner's re-fetch -> 2352
    EXPECT_EQ(durations[1], 2352_ns);
    EXPECT_EQ(durations[2], 2352_ns);
    // The first call also pays cold misses (lines fetched from memory).
    EXPECT_GT(durations[0], durations[1]);
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 3u);
}

TEST(Smp, a_second_sender_to_a_busy_queue_sends_no_ipi_and_is_still_served) {
    World w("toy8");
    w.plat->cpu(2).set_idle_state(1);  // C1: the target takes a while to wake
    int calls = 0;
    int done = 0;
    for (hw::CpuId sender : {0u, 1u}) {
        w.k->run_on(sender, [&, sender](Cpu& cpu) -> sim::Task<> {
            co_await cpu.compute(Picos(sender * 200'000));  // CPU 1 pushes while CPU 2 still sleeps
            int err = co_await w.k->smp().smp_call_function_single(cpu, 2, empty_func(&calls), true);
            EXPECT_EQ(err, 0);
            if (++done == 2) w.eng.stop();
        });
    }
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(done, 2);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 1u);
    EXPECT_EQ(w.k->smp().stats().queued_behind, 1u);
    EXPECT_EQ(w.plat->cpu(2).irqs_taken(), 1u);  // one interrupt served both
}

TEST(Smp, async_csd_reuse_spins_until_the_previous_call_was_consumed) {
    World w("toy2");
    w.plat->cpu(1).set_idle_state(1);
    std::vector<Picos> returned;
    int calls = 0;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        for (int i = 0; i < 2; ++i) {
            int err = co_await w.k->smp().smp_call_function_single(cpu, 1, empty_func(&calls), false);
            EXPECT_EQ(err, 0);
            returned.push_back(w.eng.now());
        }
        co_await cpu.compute(20_us);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    ASSERT_EQ(returned.size(), 2u);
    // The first async call returns right after sending; the second waits in csd_lock until
    // CPU 1 (C1 exit 1 us) released csd_data, which happens before it runs the callback.
    EXPECT_LT(returned[0], 1_us);
    EXPECT_GT(returned[1], 2_us);
    EXPECT_EQ(calls, 2);
    const hw::CpuProfile& prof = w.plat->cpu(0).profile();
    EXPECT_GT(prof.time(hw::profile_label("csd_lock_wait"), hw::Activity::spin), 1_us);
}

TEST(Smp, call_any_with_the_caller_in_the_mask_runs_locally_without_an_ipi) {
    World w("toy8");
    int calls = 0;
    w.k->run_on(3, [&](Cpu& cpu) -> sim::Task<> {
        hw::CpuMask mask = hw::CpuMask::of(8, {2, 3});
        int err = co_await w.k->smp().smp_call_function_any(cpu, mask, empty_func(&calls), true);
        EXPECT_EQ(err, 0);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 0u);
    EXPECT_EQ(w.plat->cpu(2).irqs_taken(), 0u);
}

TEST(Smp, call_any_prefers_the_callers_node_then_any_cpu) {
    World w("toy8");  // 2 packages = 2 NUMA nodes: CPUs 0-3 and 4-7
    kernel::Smp& smp = w.k->smp();
    EXPECT_EQ(smp.call_any_target(5, hw::CpuMask::of(8, {1, 6})), 6u);
    EXPECT_EQ(smp.call_any_target(5, hw::CpuMask::of(8, {1, 2})), 1u);
    smp.set_call_any_policy(kernel::CallAnyPolicy::nearest_node);
    EXPECT_EQ(smp.call_any_target(5, hw::CpuMask::of(8, {1, 6})), 6u);
}

TEST(Smp, a_polling_idle_target_is_woken_without_an_ipi) {
    World w("toy2");
    w.plat->cpu(1).set_idle_state(0);  // POLL
    int calls = 0;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(1_us);  // CPU 1 is polling by now
        int err = co_await w.k->smp().smp_call_function_single(cpu, 1, empty_func(&calls), true);
        EXPECT_EQ(err, 0);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 0u);
    EXPECT_EQ(w.k->smp().stats().polling_wakeups, 1u);
    EXPECT_EQ(w.plat->cpu(1).irqs_taken(), 0u);
}

TEST(Smp, an_idle_target_adds_its_exit_latency_to_the_round_trip) {
    auto round_trip = [](size_t idle_state) {
        World w("toy2");
        w.plat->cpu(1).set_idle_state(idle_state);
        Picos d;
        w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
            for (int i = 0; i < 2; ++i) {  // the second call is warm
                co_await cpu.compute(500_us);
                Picos start = w.eng.now();
                co_await w.k->smp().smp_call_function_single(cpu, 1, empty_func(), true);
                d = w.eng.now() - start;
            }
            w.eng.stop();
        });
        w.k->boot();
        w.eng.run();
        return d;
    };
    // C1 exits in 1 us, C6 in 100 us: the round trips differ by exactly 99 us.
    EXPECT_EQ(round_trip(2) - round_trip(1), 99_us);
}

TEST(Smp, an_idle_target_adds_its_wake_latency_not_its_exit_latency_to_the_round_trip) {
    auto round_trip = [](sim::Picos c6_wake) {
        hw::MachineSpec m = test::load_test_machine("toy2");
        m.idle[2].wake_latency = c6_wake;  // C6 declares 100 us
        World w(std::move(m));
        w.plat->cpu(1).set_idle_state(2);
        Picos d;
        w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
            for (int i = 0; i < 2; ++i) {  // the second call is warm
                co_await cpu.compute(500_us);
                Picos start = w.eng.now();
                co_await w.k->smp().smp_call_function_single(cpu, 1, empty_func(), true);
                d = w.eng.now() - start;
            }
            w.eng.stop();
        });
        w.k->boot();
        w.eng.run();
        return d;
    };
    // A 30 us wake instead of the declared 100 us: the round trip is exactly 70 us shorter.
    EXPECT_EQ(round_trip(100_us) - round_trip(30_us), 70_us);
}

TEST(Smp, many_call_overlaps_the_local_run_and_waits_for_every_target) {
    World w("toy8");
    int calls = 0;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        hw::CpuMask mask = hw::CpuMask::all(8);
        co_await w.k->smp().on_each_cpu_cond_mask(cpu, nullptr, empty_func(&calls), true, mask);
        EXPECT_EQ(calls, 8);  // every target ran before the call returned
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(calls, 8);
    EXPECT_EQ(w.k->smp().stats().ipis_many, 7u);
    for (hw::CpuId c = 1; c < 8; ++c) EXPECT_EQ(w.plat->cpu(c).irqs_taken(), 1u) << c;
}

TEST(Smp, a_call_to_an_offline_cpu_fails_with_enxio) {
    World w("toy2");
    w.k->smp().set_cpu_online(1, false);
    int err = 0;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        err = co_await w.k->smp().smp_call_function_single(cpu, 1, empty_func(), true);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(err, -kernel::kENXIO);
}
