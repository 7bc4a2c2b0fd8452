// x86 MWAIT idle (docs/mechanisms.md §1.11): mwait_idle_with_hints() (arch/x86/include/asm/mwait.h)
// keeps TIF_POLLING_NRFLAG set while the CPU sleeps in its C-state with MONITOR armed on the
// thread flags, so set_nr_if_polling() wakes it with a store instead of an IPI; the wake still
// takes the state's wake latency. HLT does not poll: the same call sends an IPI.
//
// toy2 (machines/toy2.toml): 1 GHz (1 cycle = 1 ns), l1_hit 1 ns, same-L3 transfer 50 ns; C1
// wake 1 us, C6 wake 100 us; kernel path costs (kernel/costs.h, cycles):
// smp_call_function_single 60, flush setup 60 + 25 per node, do_idle exit 150.
#include <gtest/gtest.h>

#include "hw/platform.h"
#include "kernel/costs.h"
#include "kernel/kernel.h"
#include "kernel/sched/sched.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using sim::Picos;

namespace {

// toy2 with C1 and C6 entered the way `mechanism` says.
hw::MachineSpec toy2_with(hw::IdleMechanism mechanism) {
    hw::MachineSpec m = test::load_test_machine("toy2");
    m.idle[1].mechanism = mechanism;
    m.idle[2].mechanism = mechanism;
    return m;
}

kernel::SmpCallFunc empty_func(int* calls = nullptr) {
    return [calls](Cpu& c) -> sim::Task<> {
        if (calls != nullptr) ++*calls;
        co_await c.compute_cycles(kernel::costs::empty_function);
    };
}

struct RoundTrip {
    Picos warm;  // the second call's round trip
    uint64_t ipis = 0;
    uint64_t polling_wakeups = 0;
    uint64_t target_irqs = 0;
};

// Two sync calls from CPU 0 to CPU 1 idling in `state`, 500 us apart; the second one is warm.
RoundTrip round_trip(hw::IdleMechanism mechanism, size_t state) {
    test::KernelWorld w(toy2_with(mechanism));
    w.plat->cpu(1).set_idle_state(state);
    RoundTrip r;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        for (int i = 0; i < 2; ++i) {
            co_await cpu.compute(500_us);
            const Picos start = w.eng.now();
            EXPECT_EQ(co_await w.k->smp().smp_call_function_single(cpu, 1, empty_func(), true), 0);
            r.warm = w.eng.now() - start;
        }
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    r.ipis = w.k->smp().stats().ipis_single;
    r.polling_wakeups = w.k->smp().stats().polling_wakeups;
    r.target_irqs = w.plat->cpu(1).irqs_taken();
    return r;
}

}  // namespace

TEST(MwaitIdle, a_call_to_an_mwait_idle_cpu_sends_no_ipi_and_wakes_it_with_the_flag_store) {
    const RoundTrip r = round_trip(hw::IdleMechanism::mwait, 1);
    EXPECT_EQ(r.ipis, 0U);
    EXPECT_EQ(r.polling_wakeups, 2U);
    EXPECT_EQ(r.target_irqs, 0U);
    // Warm call, from its start on CPU 0:
    //    60  smp_call_function_single path
    //  + 50  store CSD flags (upgrade), + 1 store func/info (hit)
    //  + 50  llist_add on CPU 1's queue head (owned by CPU 1)
    //  + 50  load CPU 1's thread flags (CPU 1 wrote TIF_POLLING_NRFLAG entering idle): polling
    //  + 50  fetch_or TIF_NEED_RESCHED (upgrade): the monitored line is written -> 261
    //  + 1000 C1 wake latency -> 1261
    //  + 50  clear TIF_POLLING_NRFLAG (the line is CPU 0's) -> 1311, + 150 do_idle exit -> 1461
    //  + 50  flush_smp_call_function_queue: load the queue head (CPU 0's) -> 1511
    //  + 50  xchg of the queue head (upgrade), + 85 flush (60 + 25 per node) -> 1646
    //  + 50  load CSD flags and func together (one line), + 5 empty callback -> 1701
    //  + 50  unlock store -> 1751, + 50 the spinner's re-fetch -> 1801
    EXPECT_EQ(r.warm, 1801_ns);
}

TEST(MwaitIdle, the_same_call_to_a_hlt_idle_cpu_is_an_ipi) {
    const RoundTrip r = round_trip(hw::IdleMechanism::hlt, 1);
    EXPECT_EQ(r.ipis, 2U);
    EXPECT_EQ(r.polling_wakeups, 0U);
    EXPECT_EQ(r.target_irqs, 2U);
    EXPECT_EQ(r.warm, 2352_ns);  // tests/kernel/smp_test.cpp a_sync_single_call_round_trip_...
}

TEST(MwaitIdle, an_mwait_wake_still_takes_the_states_wake_latency) {
    // C6 wakes in 100 us, C1 in 1 us: exactly 99 us apart, as with an IPI.
    EXPECT_EQ(round_trip(hw::IdleMechanism::mwait, 2).warm - round_trip(hw::IdleMechanism::mwait, 1).warm, 99_us);
}

TEST(MwaitIdle, a_wakeup_of_a_thread_on_an_mwait_idle_cpu_needs_no_ipi) {
    for (const hw::IdleMechanism m : {hw::IdleMechanism::mwait, hw::IdleMechanism::hlt}) {
        SCOPED_TRACE(std::string(hw::to_string(m)));
        test::KernelWorld w(toy2_with(m));
        kernel::Sched sched(*w.k);
        w.plat->cpu(1).set_idle_state(1);
        kernel::Thread* sleeper = nullptr;
        int woke = 0;
        sleeper = &sched.spawn("sleeper", 1, [&](Cpu& cpu, kernel::Thread& self) -> sim::Task<> {
            self.state = kernel::TaskState::uninterruptible;
            co_await sched.schedule(cpu);
            ++woke;
        });
        sched.spawn("waker", 0, [&](Cpu& cpu, kernel::Thread&) -> sim::Task<> {
            co_await cpu.compute(20_us);
            co_await sched.wake_up_process(cpu, *sleeper);
        });
        w.k->boot();
        w.eng.run_until(1_ms);
        EXPECT_EQ(woke, 1);
        const bool mwait = m == hw::IdleMechanism::mwait;
        EXPECT_EQ(w.k->smp().stats().ipis_single, mwait ? 0U : 1U);
        EXPECT_EQ(w.k->smp().stats().polling_wakeups, mwait ? 1U : 0U);
        w.eng.shutdown();
    }
}
