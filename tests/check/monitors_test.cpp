// The checker's monitors on toy scenarios: each invariant is broken once on purpose and the
// report names what broke; the correct version of each scenario reports nothing.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "check/monitors.h"
#include "check/mutants.h"
#include "hw/cpu/spin.h"
#include "kernel/mm/locks.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/sched_link.h"
#include "kernel/mm_world.h"
#include "kernel/sched/sched.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using check::Monitors;
using check::ViolationKind;
using kernel::mm::PAGE_SIZE;

namespace {

TEST(StaleTranslationMonitor, a_use_of_an_entry_filled_before_a_released_unmap_is_stale) {
    check::StaleTranslation s(4);
    s.pte_cleared(0, 3, 0x7f000, 10_ns);
    s.flush_returned(0, 0x7f000000, 0x7f001000, 12_ns, 20_ns);
    s.pages_released(0, 3, 0x7f000000, 0x7f001000, 20_ns);
    const auto v = s.user_tlb_hit(2, 3, 0x7f000010, 5_ns, 30_ns);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->kind, ViolationKind::stale_translation);
    EXPECT_EQ(v->cpu, 2u);
    EXPECT_NE(v->diagnosis.find("cpu2 used a stale translation of mm 3 address 0x7f000010"), std::string::npos)
        << v->diagnosis;
    EXPECT_NE(v->diagnosis.find("cpu0 cleared the PTE at 10 ns"), std::string::npos) << v->diagnosis;
    EXPECT_NE(v->diagnosis.find("ran from 12 ns to 20 ns"), std::string::npos) << v->diagnosis;
}

TEST(StaleTranslationMonitor, a_stale_entry_whose_page_is_not_yet_released_is_no_violation_as_in_lazy_protocols) {
    check::StaleTranslation s(4);
    s.pte_cleared(0, 3, 0x7f000, 10_ns);
    EXPECT_FALSE(s.user_tlb_hit(2, 3, 0x7f000000, 5_ns, 15_ns).has_value());
    s.pages_released(0, 3, 0x7f000000, 0x7f001000, 20_ns);
    // Refilled after the zap (a new fault): fresh.
    EXPECT_FALSE(s.user_tlb_hit(2, 3, 0x7f000000, 11_ns, 30_ns).has_value());
    // Another address space, another page: untouched.
    EXPECT_FALSE(s.user_tlb_hit(2, 4, 0x7f000000, 5_ns, 30_ns).has_value());
    EXPECT_FALSE(s.user_tlb_hit(2, 3, 0x7f001000, 5_ns, 30_ns).has_value());
}

TEST(StaleTranslationMonitor, an_entry_older_than_an_earlier_released_unmap_stays_stale_after_a_second_zap) {
    check::StaleTranslation s(1);
    s.pte_cleared(0, 3, 0x7f000, 10_ns);
    s.pages_released(0, 3, 0x7f000000, 0x7f001000, 20_ns);
    s.pte_cleared(0, 3, 0x7f000, 40_ns);  // refaulted meanwhile, zapped again, not yet released
    EXPECT_TRUE(s.user_tlb_hit(0, 3, 0x7f000000, 5_ns, 45_ns).has_value());
    EXPECT_FALSE(s.user_tlb_hit(0, 3, 0x7f000000, 25_ns, 45_ns).has_value());
}

// Regression (found by `ipisim check --protocol latr`, toy8 seed 98): a lazy release of an older
// zap's frame, arriving after the same CPU zapped the refaulted page again, retired the newer
// zap too, so a translation of the newer frame (still held until its own flush completes)
// counted as stale.
TEST(StaleTranslationMonitor, a_late_release_of_an_older_zap_retires_only_translations_filled_before_it) {
    check::StaleTranslation s(1);
    s.pte_cleared(0, 3, 0x7f000, 10_ns);                           // frame A unmapped; its lazy flush is pending
    s.pte_cleared(0, 3, 0x7f000, 40_ns);                           // refaulted (frame B), zapped again
    s.pages_released(0, 3, 0x7f000000, 0x7f001000, 50_ns, 10_ns);  // frame A only
    EXPECT_TRUE(s.user_tlb_hit(0, 3, 0x7f000000, 5_ns, 55_ns).has_value());    // maps A
    EXPECT_FALSE(s.user_tlb_hit(0, 3, 0x7f000000, 25_ns, 55_ns).has_value());  // maps B
    s.pages_released(0, 3, 0x7f000000, 0x7f001000, 60_ns, 40_ns);              // frame B
    EXPECT_TRUE(s.user_tlb_hit(0, 3, 0x7f000000, 25_ns, 65_ns).has_value());
}

// CPU 1 caches a page, CPU 0 drops it with madvise(MADV_DONTNEED), CPU 1 touches it again.
uint64_t madvise_scenario(const std::string& protocol, Monitors** out_mon, std::string* diagnosis) {
    check::register_mutants();
    mmtest::MmWorld w("toy4", protocol);
    Monitors mon(*w.plat);
    uint64_t total = 0;
    {
        Monitors::Installed on(mon);
        kernel::mm::MmStruct& mm = w.mm->mm_alloc(0);
        uint64_t addr = 0;
        bool mapped = false;
        bool dropped = false;
        w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> {
            co_await w.mm->switch_mm_irqs_off(cpu, mm);
            addr = co_await w.mm->vm_mmap(cpu, mm, 4 * PAGE_SIZE);
            co_await w.mm->user_access(cpu, mm, addr, true);
            mapped = true;
            co_await cpu.compute(5_us);
            co_await w.mm->do_madvise_dontneed(cpu, mm, addr, PAGE_SIZE);
            dropped = true;
        });
        w.k->run_on(1, [&](hw::Cpu& cpu) -> sim::Task<> {
            co_await w.mm->switch_mm_irqs_off(cpu, mm);
            while (!mapped) co_await cpu.compute(100_ns);
            co_await w.mm->user_access(cpu, mm, addr, true);
            while (!dropped) co_await cpu.compute(100_ns);
            co_await cpu.compute(1_us);
            co_await w.mm->user_access(cpu, mm, addr, true);
        });
        w.k->boot();
        w.eng.run_until(1_ms);
        w.eng.shutdown();
        total = mon.total();
        if (total > 0 && diagnosis != nullptr) *diagnosis = mon.violations().front().diagnosis;
    }
    (void)out_mon;
    return total;
}

TEST(StaleTranslationMonitor, a_flush_that_skips_a_cpu_caching_the_page_is_caught_at_its_next_use) {
    std::string d;
    EXPECT_EQ(madvise_scenario("ipi-local-only", nullptr, &d), 1u);
    EXPECT_NE(d.find("cpu1 used a stale translation"), std::string::npos) << d;
    EXPECT_NE(d.find("cpu0 cleared the PTE"), std::string::npos) << d;
}

TEST(StaleTranslationMonitor, the_ipi_shootdown_leaves_nothing_stale_in_the_same_scenario) {
    EXPECT_EQ(madvise_scenario("ipi", nullptr, nullptr), 0u);
}

TEST(StuckWaitMonitor, a_spin_longer_than_the_bound_names_the_cpu_the_variable_and_its_frames) {
    test::KernelWorld w("toy4");
    check::MonitorOptions o;
    o.wait_bound = 2_us;
    Monitors mon(*w.plat, o);
    Monitors::Installed on(mon);
    hw::SimVar& flag = w.k->new_aligned_var("test_flag", 0);
    const uint32_t frame = hw::profile_label("test_waiter_frame");
    w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> {
        auto scope = cpu.function(frame, hw::Activity::kernel);
        co_await hw::spin_until(cpu, w.plat->memory(), flag, [](uint64_t v) { return v != 0; });
    });
    w.k->run_on(1, [&](hw::Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(5_us);
        co_await w.k->write_once(cpu, flag, 1);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_EQ(mon.total(), 1u);
    const check::Violation& v = mon.violations().front();
    EXPECT_EQ(v.kind, ViolationKind::stuck_wait);
    EXPECT_EQ(v.cpu, 0u);
    EXPECT_NE(v.diagnosis.find("cpu0 waited on test_flag"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("test_waiter_frame"), std::string::npos) << v.diagnosis;
    w.eng.shutdown();
}

TEST(StuckWaitMonitor, the_default_bound_is_1000_times_the_slowest_idle_exit_plus_1_ms) {
    // toy4: C6 exits in 100 us.
    EXPECT_EQ(check::default_wait_bound(test::load_test_machine("toy4")), 101_ms);
}

TEST(DeadlockMonitor, two_locks_taken_in_opposite_orders_with_irqs_off_are_named_as_a_cycle) {
    test::KernelWorld w("toy4");
    Monitors mon(*w.plat);
    Monitors::Installed on(mon);
    kernel::mm::SpinLock a(w.plat->memory(), "lock_a", 0, 4);
    kernel::mm::SpinLock b(w.plat->memory(), "lock_b", 0, 4);
    int done = 0;
    auto body = [&](kernel::mm::SpinLock& first, kernel::mm::SpinLock& second) {
        return [&](hw::Cpu& cpu) -> sim::Task<> {
            cpu.local_irq_disable();
            co_await first.lock(cpu);
            co_await cpu.compute(1_us);
            co_await second.lock(cpu);
            co_await second.unlock(cpu);
            co_await first.unlock(cpu);
            co_await cpu.local_irq_enable();
            ++done;
        };
    };
    w.k->run_on(0, body(a, b));
    w.k->run_on(1, body(b, a));
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_EQ(w.eng.pending_events(), 0u);
    mon.finish(true, 2 - done);
    ASSERT_EQ(mon.total(), 1u);
    const check::Violation& v = mon.violations().front();
    EXPECT_EQ(v.kind, ViolationKind::deadlock);
    EXPECT_NE(v.diagnosis.find("wait-for cycle cpu0 -> cpu1 -> cpu0"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("cpu0 (IRQs off) holds lock_a; waits on lock_b"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("held by cpu1"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("cpu1 (IRQs off) holds lock_b; waits on lock_a"), std::string::npos) << v.diagnosis;
    w.eng.shutdown();
}

// A sleeping lock taken with IRQs off: cpu1 flushes under mmap_lock held for write and waits
// for its flush IPI to cpu0, which spins for mmap_lock (madvise's down_read) with IRQs off, so
// it never takes the IPI. The cycle goes through the rwsem's writer.
TEST(DeadlockMonitor, a_cycle_through_mmap_lock_names_the_rwsem_writer_and_the_cpu_with_irqs_off) {
    mmtest::MmWorld w("toy4", "ipi");
    Monitors mon(*w.plat);
    Monitors::Installed on(mon);
    kernel::mm::MmStruct& mm = w.mm->mm_alloc(0);
    uint64_t addr = 0;
    bool mapped = false;
    int done = 0;
    w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        while (!mapped) co_await cpu.compute(100_ns);
        co_await w.mm->user_access(cpu, mm, addr, true);
        co_await cpu.compute(2_us);
        cpu.local_irq_disable();
        co_await mm.mmap_lock->down_read(cpu);
        co_await mm.mmap_lock->up_read(cpu);
        co_await cpu.local_irq_enable();
        ++done;
    });
    w.k->run_on(1, [&](hw::Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        addr = co_await w.mm->vm_mmap(cpu, mm, 4 * PAGE_SIZE);
        co_await w.mm->user_access(cpu, mm, addr, true);
        mapped = true;
        co_await cpu.compute(1_us);
        co_await mm.mmap_lock->down_write(cpu);
        co_await cpu.compute(2_us);  // cpu0 is spinning for the lock by now
        co_await w.mm->flush_tlb_mm_range(cpu, mm, addr, addr + PAGE_SIZE, kernel::mm::PAGE_SHIFT, false);
        co_await mm.mmap_lock->up_write(cpu);
        ++done;
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_EQ(w.eng.pending_events(), 0u);
    mon.finish(true, 2 - done);
    ASSERT_EQ(mon.total(), 1u);
    const check::Violation& v = mon.violations().front();
    EXPECT_EQ(v.kind, ViolationKind::deadlock);
    const std::string lock = fmt::format("mm[{}].mmap_lock", mm.id);
    EXPECT_NE(v.diagnosis.find("wait-for cycle cpu0 -> cpu1 -> cpu0"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("cpu0 (IRQs off) holds no lock; waits on " + lock), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("held for write by cpu1"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("cpu1 (IRQs on) holds " + lock + " (write); waits on cfd_csd@0"), std::string::npos)
        << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("a CSD only cpu0's IPI handler can release"), std::string::npos) << v.diagnosis;
    w.eng.shutdown();
}

// Readers are owners too: a writer waiting behind two readers, one of which is stuck itself,
// has its edge to that one.
TEST(DeadlockMonitor, a_writer_waiting_for_readers_points_at_the_reader_that_is_stuck_itself) {
    test::KernelWorld w("toy4");
    Monitors mon(*w.plat);
    Monitors::Installed on(mon);
    kernel::mm::RwSem sem(w.plat->memory(), "test_rwsem", 0);
    kernel::mm::SpinLock lock(w.plat->memory(), "test_lock", 0, 4);
    int done = 0;
    // cpu2: reads test_rwsem and never lets go of it (its work ends holding it).
    w.k->run_on(2, [&](hw::Cpu& cpu) -> sim::Task<> {
        co_await sem.down_read(cpu);
        co_await cpu.compute(10_us);
        ++done;
    });
    // cpu1: reads test_rwsem after cpu2, then waits for test_lock, which cpu0 holds.
    w.k->run_on(1, [&](hw::Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(100_ns);
        co_await sem.down_read(cpu);
        co_await cpu.compute(1_us);
        cpu.local_irq_disable();
        co_await lock.lock(cpu);
        ++done;
    });
    // cpu0: takes test_lock, then wants test_rwsem for write.
    w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> {
        cpu.local_irq_disable();
        co_await lock.lock(cpu);
        co_await cpu.compute(500_ns);
        co_await sem.down_write(cpu);
        ++done;
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_EQ(w.eng.pending_events(), 0u);
    mon.finish(true, 3 - done);
    ASSERT_EQ(mon.total(), 1u);
    const check::Violation& v = mon.violations().front();
    EXPECT_EQ(v.kind, ViolationKind::deadlock);
    EXPECT_NE(v.diagnosis.find("wait-for cycle cpu0 -> cpu1 -> cpu0"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("held for read by cpu2, cpu1"), std::string::npos) << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("cpu1 (IRQs off) holds test_rwsem (read); waits on test_lock"), std::string::npos)
        << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("held by cpu0"), std::string::npos) << v.diagnosis;
    w.eng.shutdown();
}

// Sleeping waiters are edges too: two scheduler threads each write-lock one rwsem and then
// want the other's for read, in opposite orders; a reader blocked by a writer sleeps
// (schedule(), its CPU idles; writers would spin on the owner), so no CPU spins and no event
// is left. The monitor follows the tasks asleep on each CPU; the same scenario in one order each
// finishes and reports nothing.
namespace {

struct SleepingAbba {
    uint64_t violations = 0;
    std::string diagnosis;
    int done = 0;
};

SleepingAbba sleeping_abba(bool opposite) {
    mmtest::MmWorld w("toy4");
    Monitors mon(*w.plat);
    Monitors::Installed on(mon);
    kernel::Sched& sched = w.k->sched();
    kernel::mm::RwSem a(w.plat->memory(), "sem_a", 0, &w.mm->sched_link());
    kernel::mm::RwSem b(w.plat->memory(), "sem_b", 0, &w.mm->sched_link());
    SleepingAbba out;
    auto body = [&](kernel::mm::RwSem& first, kernel::mm::RwSem& second) {
        return [&](hw::Cpu& cpu, kernel::Thread&) -> sim::Task<> {
            co_await first.down_write(cpu);
            co_await cpu.compute(2_us);
            co_await second.down_read(cpu);
            co_await second.up_read(cpu);
            co_await first.up_write(cpu);
            ++out.done;
        };
    };
    sched.spawn("t0", 0, body(a, b));
    sched.spawn("t1", 1, opposite ? body(b, a) : body(a, b));
    w.k->boot();
    w.eng.run_until(1_ms);
    mon.finish_run();
    out.violations = mon.total();
    if (mon.total() != 0) out.diagnosis = mon.violations().front().diagnosis;
    w.eng.shutdown();
    return out;
}

}  // namespace

TEST(DeadlockMonitor, tasks_asleep_on_each_others_rwsems_are_a_cycle) {
    const SleepingAbba bad = sleeping_abba(true);
    EXPECT_EQ(bad.done, 0);
    ASSERT_EQ(bad.violations, 1u);
    const std::string& d = bad.diagnosis;
    EXPECT_NE(d.find("deadlock: no event is left and the wait-for cycle cpu0 -> cpu1 -> cpu0"), std::string::npos) << d;
    EXPECT_NE(d.find("cpu0 (IRQs on) holds sem_a (write); a task of it asleep on"), std::string::npos) << d;
    EXPECT_NE(d.find("held for write by cpu1"), std::string::npos) << d;
    EXPECT_NE(d.find("cpu1 (IRQs on) holds sem_b (write); a task of it asleep on"), std::string::npos) << d;
    EXPECT_NE(d.find("held for write by cpu0"), std::string::npos) << d;
    const SleepingAbba good = sleeping_abba(false);
    EXPECT_EQ(good.done, 2);
    EXPECT_EQ(good.violations, 0u) << good.diagnosis;
}

TEST(ContractMonitor, a_csd_unlocked_while_not_locked_is_a_double_unlock) {
    test::KernelWorld w("toy4");
    Monitors mon(*w.plat);
    hw::SimVar& flags = w.k->new_aligned_var("csd_test", 0);
    mon.csd_unlock(2, flags, kernel::CSD_FLAG_LOCK | kernel::CSD_TYPE_SYNC);
    EXPECT_EQ(mon.total(), 0u);
    mon.csd_unlock(2, flags, 0);
    ASSERT_EQ(mon.total(), 1u);
    EXPECT_EQ(mon.violations().front().kind, ViolationKind::contract);
    EXPECT_NE(mon.violations().front().diagnosis.find("cpu2 unlocked the CSD on csd_test"), std::string::npos);
}

}  // namespace
