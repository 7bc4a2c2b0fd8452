// A task that waits for an rw_semaphore sleeps (kernel/mm/rwsem.h, docs/mechanisms.md "mmap_lock
// waiters"): it queues, calls schedule(), its CPU switches to the idle task with the user mm
// kept lazily (enter_lazy_tlb) and idles; the writer's up_write grants it the lock and wakes it
// with try_to_wake_up (the TTWU queue: an idle target), and it comes back through
// switch_mm_irqs_off. toy4 (machines/toy4.toml): 1 GHz, context switch 1 us; the idle CPU has
// no history, so the governor picks the deepest state (C6).
#include <gtest/gtest.h>

#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "mm_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using mmtest::MmWorld;
using sim::Picos;

TEST(RwSemSleep, a_task_waiting_for_a_writer_sleeps_lazily_and_is_woken_by_up_write) {
    MmWorld w("toy4");
    kernel::Sched& sched = w.k->sched();
    sched.cpuidle().set_enabled(true);
    MmStruct& m = w.mm->mm_alloc(0);
    Picos released = Picos::max();
    Picos acquired = Picos::max();
    bool lazy_while_asleep = false;
    bool idle_while_asleep = false;
    kernel::Thread& writer = sched.spawn(
        "writer", 0,
        [&](Cpu& cpu, kernel::Thread&) -> sim::Task<> {
            co_await m.mmap_lock->down_write(cpu);
            co_await cpu.compute(20_us);
            lazy_while_asleep = w.mm->tlbstate(1).is_lazy->peek() == 1;
            idle_while_asleep = sched.current(1) == nullptr && w.plat->cpu(1).in_idle();
            released = cpu.now();
            co_await m.mmap_lock->up_write(cpu);
        },
        hw::Activity::user);
    kernel::Thread& reader = sched.spawn(
        "reader", 1,
        [&](Cpu& cpu, kernel::Thread&) -> sim::Task<> {
            co_await cpu.compute(3_us);
            co_await m.mmap_lock->down_read(cpu);
            acquired = cpu.now();
            co_await m.mmap_lock->up_read(cpu);
        },
        hw::Activity::user);
    writer.mm = m.id;
    reader.mm = m.id;
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_NE(acquired, Picos::max());
    EXPECT_TRUE(lazy_while_asleep);
    EXPECT_TRUE(idle_while_asleep);
    EXPECT_EQ(m.mmap_lock->sleeps(), 1U);
    EXPECT_EQ(reader.nvcsw, 1U);        // it blocked once
    EXPECT_EQ(reader.switches_in, 2U);  // its start and its wake-up
    EXPECT_GE(sched.stats().wakeups, 1U);
    // From up_write to the reader's return: the grant, try_to_wake_up through the TTWU queue,
    // the CPU's C6 exit, the idle loop's drain, the switch back in (1 us) and the mm switch.
    // C6's 100 us wake is most of it; the rest (3.519 us) is try_to_wake_up's p->pi_lock (a
    // line nobody has touched: toy4's 100 ns memory), the wake-up IPI (C6 is HLT here: no
    // polling shortcut), the handler and idle exit, the switch and the mm switch.
    EXPECT_EQ(acquired - released, 103519_ns);
}
