// Scheduler scenarios on toy machines with exact times.
//
// toy2 (machines/toy2.toml): 2 CPUs sharing an L3, 1 GHz (1 cycle = 1 ns), context switch 1 us
// (500 ns in the outgoing context, 500 ns in the incoming one), IRQ entry 200, EOI 50, exit 100
// ns, C1 exit 1 us, x2APIC phys send 150 ns (fence 50 + ICR 100), fabric delivery 500 ns.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/cpu/profile.h"
#include "hw/platform.h"
#include "kernel/costs.h"
#include "kernel/kernel.h"
#include "kernel/sched/completion.h"
#include "kernel/sched/sched.h"
#include "support/kernel_world.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::Thread;
using sim::Picos;

namespace {

struct World : test::KernelWorld {
    std::unique_ptr<kernel::Sched> sched;
    explicit World(const std::string& machine) : World(test::load_test_machine(machine)) {}
    explicit World(hw::MachineSpec machine) : KernelWorld(std::move(machine)) {
        sched = std::make_unique<kernel::Sched>(*k);
    }
    ~World() override {
        eng.shutdown();
        sched.reset();
    }
    // Puts the calling thread to sleep until someone wakes it.
    sim::Task<> block(Cpu& cpu, Thread& self) {
        self.state = kernel::TaskState::uninterruptible;
        co_await sched->schedule(cpu);
    }
};

}  // namespace

TEST(Sched, a_context_switch_costs_exactly_the_machines_context_switch) {
    World w("toy2");
    Picos a_started, b_started, a_blocked;
    Thread& a = w.sched->spawn("a", 0, [&](Cpu& cpu, Thread& self) -> sim::Task<> {
        a_started = w.eng.now();
        co_await cpu.compute(2_us);
        a_blocked = w.eng.now();
        co_await w.block(cpu, self);
    });
    w.sched->spawn("b", 0, [&](Cpu&, Thread&) -> sim::Task<> {
        b_started = w.eng.now();
        co_return;
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    // idle -> a at boot: 1 us; a -> b when a blocks: 1 us.
    EXPECT_EQ(a_started, 1_us);
    EXPECT_EQ(a_blocked, 3_us);
    EXPECT_EQ(b_started, 4_us);
    // a is charged from the middle of its switch-in (500 ns) to the middle of its switch-out
    // (3.5 us), as perf switches counters inside __schedule.
    EXPECT_EQ(w.sched->runtime(a), 3_us);
    EXPECT_EQ(a.nvcsw, 1u);
    // idle->a, a->b, b->idle (b exited)
    EXPECT_EQ(w.sched->stats().context_switches, 3u);
    EXPECT_EQ(w.plat->cpu(0).profile().time_in_label(hw::profile_label("__schedule")), 3_us);
}

TEST(Sched, an_interrupt_preempts_a_thread_which_keeps_its_state) {
    World w("toy2");
    Picos done;
    int local = 0;
    w.sched->spawn("a", 1, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        local = 42;
        co_await cpu.compute(10_us);
        EXPECT_EQ(local, 42);
        done = w.eng.now();
    });
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(2_us);
        co_await w.k->smp().smp_call_function_single(
            cpu, 1, [](Cpu& c) -> sim::Task<> { co_await c.compute(100_ns); }, true);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    // a starts at 1 us; the IPI (sent ~2.2 us, delivered ~2.7 us) costs CPU 1 IRQ entry 200 +
    // EOI 50 + handler + exit 100: a finishes late by exactly the time spent in the interrupt.
    const Picos irq = w.plat->cpu(1).profile().time_in(hw::Activity::irq);
    EXPECT_GT(irq, 350_ns);
    EXPECT_EQ(done, 11_us + irq);
}

TEST(Sched, a_remote_wakeup_of_a_thread_on_an_idle_cpu_goes_through_the_call_single_queue_ipi) {
    World w("toy2");
    w.plat->cpu(1).set_idle_state(1);  // C1: exit 1 us, not polling
    Thread* sleeper = nullptr;
    std::vector<Picos> woke;
    sleeper = &w.sched->spawn("sleeper", 1, [&](Cpu& cpu, Thread& self) -> sim::Task<> {
        for (;;) {
            co_await w.block(cpu, self);
            woke.push_back(w.eng.now());
        }
    });
    std::vector<Picos> sent;
    w.sched->spawn("waker", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        for (int i = 0; i < 2; ++i) {
            co_await cpu.compute(20_us);
            sent.push_back(w.eng.now());
            const bool ok = co_await w.sched->wake_up_process(cpu, *sleeper);
            EXPECT_TRUE(ok);
        }
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_EQ(woke.size(), 2u);
    EXPECT_EQ(w.sched->stats().wakeups_queued, 2u);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 2u);
    EXPECT_EQ(w.k->smp().stats().polling_wakeups, 0u);
    // Second wake-up (warm lines), from the waker's call:
    //     1  p->pi_lock cmpxchg (CPU 0 took it at the first wake-up: a hit)
    // + 120  try_to_wake_up path
    // +  50  load the wake_entry CSD flags (CPU 1 unlocked them last), + 50 store LOCK (upgrade)
    // +  50  llist_add: fetch_add on CPU 1's queue head (CPU 1 xchg'ed it last)
    // +   1  load CPU 1's idle flags (shared, hit): not polling
    // + 150  x2APIC send, + 500 fabric delivery -> 922
    // + 1000 C1 exit, + 200 IRQ entry, + 50 EOI -> 2172
    // +  50  xchg of the queue head, + 85 flush setup (60 + 25 per node) -> 2307
    // +  50  load the CSD flags (pass 1: not SYNC), + 1 load func (pass 2), + 50 unlock -> 2408
    // +   1  rq lock cmpxchg (CPU 1's own line), + 200 ttwu_do_activate, + 1 unlock -> 2610
    // + 100  IRQ exit; + 150 do_idle exit; + 1 flush check of the (now empty) queue -> 2861
    // + 1000 idle -> sleeper context switch -> 3861
    // (the pi_lock's unlock comes after the IPI left, so it is not on this path)
    EXPECT_EQ(woke[1] - sent[1], 3861_ns);
}

// try_to_wake_up() takes p->pi_lock (a cmpxchg, so the waker's store buffer drains first) and
// then reads p->state: a CONDITION the waker stored just before is visible before the sleeper
// can be found and woken, so a sleeper that checks it after set_current_state() cannot miss
// it (the pairing of kernel/sched/core.c's comment in try_to_wake_up). toy2 with 8-entry store
// buffers and one fill buffer: the waker's five buffered stores (four other lines, then the
// CONDITION), to lines nobody holds, commit one after another.
TEST(Sched, try_to_wake_up_drains_the_wakers_stores_before_it_looks_at_the_sleeper) {
    hw::MachineSpec m = test::load_test_machine("toy2");
    m.coherence.store_buffer = 8;
    World w(std::move(m));
    hw::Memory& mem = w.plat->memory();
    hw::SimVar& cond = mem.new_aligned_var("cond", 0);
    std::vector<hw::SimVar*> other;
    for (int i = 0; i < 4; ++i) other.push_back(&mem.new_aligned_var("other" + std::to_string(i), 0));
    Thread* sleeper = nullptr;
    uint64_t seen = 0;
    sleeper = &w.sched->spawn("sleeper", 1, [&](Cpu& cpu, Thread& self) -> sim::Task<> {
        for (;;) {
            self.state = kernel::TaskState::uninterruptible;  // set_current_state()
            co_await mem.fence(cpu.id());
            seen = co_await mem.load(cpu.id(), cond);
            if (seen != 0) break;
            co_await w.sched->schedule(cpu);
        }
        self.state = kernel::TaskState::running;
    });
    Picos stored;
    Picos locked;
    w.sched->spawn("waker", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        co_await cpu.compute(20_us);
        for (hw::SimVar* v : other) co_await mem.store(cpu.id(), *v, 1);
        co_await mem.store(cpu.id(), cond, 1);
        stored = w.eng.now();
        EXPECT_EQ(mem.peek(1, cond), 0u);  // still in the waker's buffer
        EXPECT_TRUE(co_await w.sched->wake_up_process(cpu, *sleeper));
        locked = w.eng.now();
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(seen, 1u);
    // The stores issue at once (the buffer takes them); each commits after the one before it:
    // 1 ns + 100 ns memory, five times, so the CONDITION is visible at +505 ns. Then the
    // pi_lock's cmpxchg (a line nobody holds: 100 ns) -> 605, try_to_wake_up's 120 cycles ->
    // 725, and the TTWU queue's async CSD and x2APIC send to the idle CPU 1 -> 1128. Before
    // try_to_wake_up took the lock it read p->state at once, ahead of the buffered stores.
    EXPECT_EQ(stored, 21_us);
    EXPECT_EQ(locked - stored, 1128_ns);
}

TEST(Sched, a_wakeup_on_a_polling_idle_cpu_needs_no_ipi) {
    World w("toy2");
    w.plat->cpu(1).set_idle_state(0);  // POLL
    Thread* sleeper = nullptr;
    int woke = 0;
    sleeper = &w.sched->spawn("sleeper", 1, [&](Cpu& cpu, Thread& self) -> sim::Task<> {
        co_await w.block(cpu, self);
        ++woke;
    });
    w.sched->spawn("waker", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        co_await cpu.compute(20_us);
        co_await w.sched->wake_up_process(cpu, *sleeper);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(woke, 1);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 0u);
    EXPECT_EQ(w.k->smp().stats().polling_wakeups, 1u);
}

TEST(Sched, a_completion_wakes_its_waiter) {
    World w("toy2");
    w.plat->cpu(1).set_idle_state(1);
    hw::Memory& mem = w.plat->memory();
    kernel::Completion done = kernel::Completion::on_new_line(mem, "done", 0);
    Picos waited, completed;
    w.sched->spawn("waiter", 1, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        co_await kernel::wait_for_completion(*w.sched, cpu, done);
        waited = w.eng.now();
    });
    w.sched->spawn("completer", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        co_await cpu.compute(20_us);
        completed = w.eng.now();
        co_await kernel::complete(*w.sched, cpu, done);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_GT(waited, completed);
    EXPECT_EQ(w.sched->stats().wakeups, 1u);
    EXPECT_EQ(done.done->peek(), 0u);  // consumed by the waiter
}

TEST(Sched, a_completion_done_before_the_wait_does_not_sleep) {
    World w("toy2");
    hw::Memory& mem = w.plat->memory();
    kernel::Completion done = kernel::Completion::on_new_line(mem, "done", 0);
    done.done->poke(1);
    Thread& t = w.sched->spawn("waiter", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        co_await kernel::wait_for_completion(*w.sched, cpu, done);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(t.nvcsw, 0u);
    EXPECT_EQ(w.sched->stats().wakeups, 0u);
}

TEST(Sched, msleep_excludes_the_sleep_from_the_running_time_and_the_cpu_idles) {
    World w("toy2");
    w.plat->cpu(0).set_idle_state(1);
    Picos woke;
    Thread& t = w.sched->spawn("sleeper", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        co_await w.sched->msleep(cpu, 1);
        woke = w.eng.now();
    });
    w.k->boot();
    w.eng.run_until(10_ms);
    // idle -> t: 1 us; schedule_timeout path 150 ns arms the timer at 1.15 us -> fires at
    // 1001.15 us. Then: C1 exit 1000, IRQ entry 200 + EOI 50, timer handler 400, local wake-up
    // (try_to_wake_up 120 + rq lock 1 + activate 200 + unlock 1), IRQ exit 100, do_idle exit
    // 150, queue check 1 (a cold miss of ~100 the first time: 1 us of C1 idle came before),
    // idle -> t 1 us.
    EXPECT_GT(woke, 1001150_ns + 4_us - 1_us);
    EXPECT_LT(woke, 1001150_ns + 4_us);
    // Running time: half of each switch (4 x 500 ns) + the 150 ns timeout path; the 1 ms sleep
    // and the wake-up in the idle task are not in it.
    EXPECT_EQ(t.sum_exec_runtime, 2150_ns);
    EXPECT_EQ(w.sched->stats().timer_interrupts, 1u);
    EXPECT_GE(w.plat->cpu(0).profile().time_in(hw::Activity::idle), 990_us);
}

// The timer interrupt's IRQ time is charged to the kernel's handler of each architecture: x86's
// local APIC timer entry, the arm64 arch timer's physical-timer handler (a host kernel).
TEST(Sched, the_timer_interrupt_has_its_architectures_handler_name) {
    for (const auto& [machine, name] : std::vector<std::pair<std::string, std::string>>{
             {"toy4", "sysvec_apic_timer_interrupt"}, {"toy4_arm", "arch_timer_handler_phys"}}) {
        World w(machine);
        w.sched->spawn("sleeper", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> { co_await w.sched->msleep(cpu, 1); });
        w.k->boot();
        w.eng.run_until(10_ms);
        EXPECT_EQ(w.sched->stats().timer_interrupts, 1u) << machine;
        hw::CpuProfile& prof = w.plat->cpu(0).profile();
        prof.settle(w.eng.now());
        std::set<std::string> irq_labels;
        for (uint32_t l = 0; l < prof.nr_labels(); ++l) {
            if (prof.time(l, hw::Activity::irq) > Picos::zero()) irq_labels.insert(hw::profile_label_name(l));
        }
        EXPECT_EQ(irq_labels.count(name), 1U) << machine;
        EXPECT_EQ(irq_labels.count(machine == "toy4" ? "arch_timer_handler_phys" : "sysvec_apic_timer_interrupt"), 0U)
            << machine;
    }
}
