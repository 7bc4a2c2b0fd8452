// rw_semaphore scenarios (kernel/mm/rwsem.h) with exact times, on toy8 made uniform: every
// line transfer between two CPUs costs T = 50 ns whatever their distance (no remote-home
// extra), an L1 hit 1 ns, a line cached nowhere 100 ns from memory, no line occupancy. The count
// word, the OSQ tail and wait_lock share the semaphore's line; each waiting CPU spins on its own
// waiter line.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "hw/platform.h"
#include "kernel/kernel.h"
#include "kernel/mm/rwsem.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::RwSem;
using sim::Picos;

namespace {

constexpr Picos T = 50_ns;  // any line transfer
constexpr Picos L1 = 1_ns;  // a hit
constexpr Picos MEM = 100_ns;

hw::MachineSpec uniform_toy8() {
    hw::MachineSpec m = test::load_test_machine("toy8");
    for (hw::DistanceClass c : hw::kAllDistanceClasses) {
        if (c != hw::DistanceClass::self) m.coherence.transfer.at(c) = T;
    }
    m.coherence.remote_home_extra = Picos::zero();
    m.coherence.memory_local = MEM;
    m.coherence.memory_remote = MEM;
    return m;
}

struct World : test::KernelWorld {
    World() : KernelWorld(uniform_toy8()), sem(plat->memory(), "test_rwsem", 0) {}
    ~World() { eng.shutdown(); }
    RwSem sem;
};

// `n` CPUs: CPU 0 takes the lock at 0 (for read if `first_reads`), CPUs 1..n-1 ask for it for
// write 10 ns apart from 10 ns on; each holds it for `hold` and then releases it. Returns the
// acquisition times by CPU.
std::vector<Picos> writers(World& w, uint32_t n, Picos hold, bool first_reads = false) {
    std::vector<Picos> acquired(n, Picos::max());
    for (hw::CpuId c = 0; c < n; ++c) {
        w.k->run_on(c, [&w, &acquired, c, hold, first_reads](Cpu& cpu) -> sim::Task<> {
            const bool read = c == 0 && first_reads;
            if (c > 0) co_await cpu.compute(10_ns * c);
            if (read) {
                co_await w.sem.down_read(cpu);
            } else {
                co_await w.sem.down_write(cpu);
            }
            acquired[c] = cpu.now();
            co_await cpu.compute(hold);
            if (read) {
                co_await w.sem.up_read(cpu);
            } else {
                co_await w.sem.up_write(cpu);
            }
        });
    }
    w.k->boot();
    w.eng.run_until(1_ms);
    return acquired;
}

// Hand-off to the OSQ head, from the holder's up_write to the head's return from down_write:
// up_write's fetch_add (T, the head shares the line), the head's re-load (T), its cmpxchg (T:
// the releaser still shares the line), osq_unlock's cmpxchg of the tail (L1), and with a
// successor in the OSQ the store to its node (T).
constexpr Picos kSpinHandoff = 3 * T + L1;
constexpr Picos kSpinHandoffWithSuccessor = 4 * T + L1;

// Wake hand-off between writers on the wait list, from the holder's up_write to the next
// writer's return from down_write:
//   L1  up_write fetch_add on the count (the holder took it from the wait list and nobody
//       touched the line since)
//   L1  raw_spin_lock of wait_lock (cmpxchg, same line)
//   L1  raw_spin_unlock of wait_lock (fetch_and)
//   T   wake_up_q: the write to the woken writer's task state (it loaded it while spinning)
//   T   the woken writer re-loads its task state (the waker owns the line)
//   T   raw_spin_lock of wait_lock: cmpxchg, the count line comes from the waker
//   L1  rwsem_try_write_lock: load of the count
//   L1  cmpxchg of the count
//   L1  raw_spin_unlock of wait_lock
constexpr Picos kQueuedHandoff = 3 * T + 6 * L1;

}  // namespace

// The OSQ head spins on the count while the writer runs and takes it when the writer leaves:
// up_write's fetch_add (T, the spinner shares the line), the spinner's re-load (T), its
// cmpxchg (T: the releaser still shares the line) and osq_unlock's cmpxchg (L1).
TEST(RwSem, a_second_writer_spins_on_the_count_and_takes_it_three_transfers_after_up_write) {
    World w;
    const std::vector<Picos> acquired = writers(w, 2, 5_us);
    // CPU 0: cmpxchg from memory (MEM), holds 5 us: up_write at MEM + 5 us.
    EXPECT_EQ(acquired[0], MEM);
    EXPECT_EQ(acquired[1], MEM + 5_us + 3 * T + L1);
    EXPECT_EQ(w.sem.spin_acquisitions(), 1u);
    EXPECT_EQ(w.sem.wakeups(), 0u);
    EXPECT_EQ(w.sem.nr_waiters(), 0u);
    EXPECT_EQ(w.sem.count().peek(), 0u);
}

// A third writer waits in the OSQ on its own node behind the spinning head; the head hands it
// the OSQ when it takes the lock, and it then takes the lock the same way.
TEST(RwSem, a_third_writer_waits_in_the_osq_and_spins_on_the_count_once_it_is_the_head) {
    World w;
    const Picos hold = 5_us;
    const std::vector<Picos> acquired = writers(w, 3, hold);
    EXPECT_EQ(acquired[0], MEM);
    EXPECT_EQ(acquired[1], acquired[0] + hold + kSpinHandoffWithSuccessor);
    EXPECT_EQ(acquired[2], acquired[1] + hold + kSpinHandoff);
    EXPECT_EQ(w.sem.spin_acquisitions(), 2u);
    EXPECT_EQ(w.sem.wakeups(), 0u);
    EXPECT_EQ(w.sem.count().peek(), 0u);
}

// The queues make a hand-off cost the same however many wait: with 3 and with 7 writers
// waiting on toy8, in the OSQ (behind a writer) or on the wait list (behind a reader held
// past rwsem_rspin_threshold(), after which writers stop spinning), each hand-off costs the
// same few transfers. (When every waiter spun
// on the count, as before, each release cost one more transfer per waiter.)
TEST(RwSem, the_hand_off_between_queued_writers_does_not_grow_with_the_number_of_waiters) {
    const Picos hold = 5_us;
    for (uint32_t n : {4U, 8U}) {
        World w;
        std::vector<Picos> acquired = writers(w, n, hold);
        ASSERT_NE(acquired.back(), Picos::max()) << n << " writers";
        for (uint32_t k = 1; k + 1 < n; ++k) {
            EXPECT_EQ(acquired[k] - (acquired[k - 1] + hold), kSpinHandoffWithSuccessor) << n << " writers, " << k;
        }
        EXPECT_EQ(acquired[n - 1] - (acquired[n - 2] + hold), kSpinHandoff) << n << " writers";
        EXPECT_EQ(w.sem.spin_acquisitions(), n - 1) << n << " writers";
    }
    for (uint32_t n : {4U, 8U}) {
        World w;
        // Held 30 us: the OSQ head gives up at 10.5 us and marks the lock nonspinnable; the
        // writers behind it then queue at once.
        std::vector<Picos> acquired = writers(w, n, 30_us, /*first_reads=*/true);
        ASSERT_NE(acquired.back(), Picos::max()) << n << " CPUs";
        EXPECT_EQ(w.sem.rspin_timeouts(), 1u) << n << " CPUs";
        // CPU 0's up_read wakes CPU 1; from then on writer to writer on the wait list.
        for (uint32_t k = 2; k < n; ++k) {
            EXPECT_EQ(acquired[k] - (acquired[k - 1] + 30_us), kQueuedHandoff) << n << " CPUs, " << k;
        }
        EXPECT_EQ(w.sem.spin_acquisitions(), 0u) << n << " CPUs";
        EXPECT_EQ(w.sem.wakeups(), n - 1) << n << " CPUs";
        EXPECT_EQ(w.sem.count().peek(), 0u) << n << " CPUs";
    }
}

// Readers queued behind a writer are granted the lock together by its up_write: one fetch_add
// for the first reader, one for the rest (and FLAG_WAITERS off), then one store to each reader.
TEST(RwSem, readers_behind_a_writer_are_woken_together_by_its_release) {
    World w;
    std::vector<Picos> acquired(4, Picos::max());
    int inside = 0;
    int max_inside = 0;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.sem.down_write(cpu);
        acquired[0] = cpu.now();
        co_await cpu.compute(5_us);
        co_await w.sem.up_write(cpu);
    });
    for (hw::CpuId c = 1; c < 4; ++c) {
        w.k->run_on(c, [&, c](Cpu& cpu) -> sim::Task<> {
            co_await cpu.compute(200_ns * c);
            co_await w.sem.down_read(cpu);
            acquired[c] = cpu.now();
            max_inside = std::max(max_inside, ++inside);
            co_await cpu.compute(1_us);
            --inside;
            co_await w.sem.up_read(cpu);
        });
    }
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(max_inside, 3);
    EXPECT_EQ(w.sem.wakeups(), 3u);
    EXPECT_EQ(w.sem.nr_waiters(), 0u);
    EXPECT_EQ(w.sem.count().peek(), 0u);
    // From up_write (5 us after acquired[0]): fetch_add (T), wait_lock (L1), the first
    // reader's bias (L1), the others' bias and FLAG_WAITERS off (L1), then the grants in queue
    // order, a store each (T, the reader loaded its line); each reader re-loads its line (T).
    const Picos release = acquired[0] + 5_us;
    const Picos grants = release + T + 3 * L1;
    EXPECT_EQ(acquired[1], grants + T + T);
    EXPECT_EQ(acquired[2], grants + 2 * T + T);
    EXPECT_EQ(acquired[3], grants + 3 * T + T);
}

// Phase-fair batching (rwsem_mark_wake): CPU 0 reads; a writer (CPU 1), a reader (2), a
// writer (3) and a reader (4) queue in that order (a writer does not spin on a reader-owned
// lock). CPU 0's up_read wakes the first writer; its up_write grants both readers, the one
// queued behind the second writer too; that writer gets the lock when the last reader leaves.
TEST(RwSem, a_release_wakes_the_readers_queued_behind_a_waiting_writer_too) {
    World w;
    std::vector<Picos> acquired(5, Picos::max());
    std::vector<Picos> released(5, Picos::max());
    const bool write[5] = {false, true, false, true, false};
    // Writer 1 spins on reader 0 until rwsem_rspin_threshold (10.5 us), marks the lock
    // nonspinnable and queues; reader 2, writer 3 and reader 4 then queue behind it.
    const Picos arrive[5] = {0_ns, 1_us, 12_us, 13_us, 14_us};
    for (hw::CpuId c = 0; c < 5; ++c) {
        w.k->run_on(c, [&, c](Cpu& cpu) -> sim::Task<> {
            co_await cpu.compute(arrive[c]);
            if (write[c]) {
                co_await w.sem.down_write(cpu);
            } else {
                co_await w.sem.down_read(cpu);
            }
            acquired[c] = cpu.now();
            co_await cpu.compute(50_us);
            released[c] = cpu.now();
            if (write[c]) {
                co_await w.sem.up_write(cpu);
            } else {
                co_await w.sem.up_read(cpu);
            }
        });
    }
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_NE(acquired[3], Picos::max());
    EXPECT_GT(acquired[1], released[0]);
    EXPECT_GT(acquired[2], released[1]);
    EXPECT_GT(acquired[4], released[1]);
    EXPECT_LT(acquired[4], released[2]);  // both readers inside together
    EXPECT_LT(acquired[2], released[4]);
    EXPECT_GT(acquired[3], std::max(released[2], released[4]));
    EXPECT_EQ(w.sem.spin_acquisitions(), 0u);
    EXPECT_EQ(w.sem.rspin_timeouts(), 1u);
    EXPECT_EQ(w.sem.wakeups(), 4u);  // writer 1, readers 2 and 4, writer 3
    EXPECT_EQ(w.sem.count().peek(), 0u);
    EXPECT_EQ(w.sem.nr_waiters(), 0u);
}

// rwsem_rspin_threshold(): a writer spins on a reader-owned lock for (10 + readers/2) us, at
// most 25 us.
TEST(RwSem, the_reader_spin_threshold_grows_with_the_readers_up_to_25_us) {
    EXPECT_EQ(RwSem::rwsem_rspin_threshold(1 * RwSem::READER_BIAS), 10500_ns);
    EXPECT_EQ(RwSem::rwsem_rspin_threshold(10 * RwSem::READER_BIAS), 15_us);
    EXPECT_EQ(RwSem::rwsem_rspin_threshold(30 * RwSem::READER_BIAS), 25_us);
    EXPECT_EQ(RwSem::rwsem_rspin_threshold(200 * RwSem::READER_BIAS), 25_us);
}

// A writer that finds one reader spins on the count and takes the lock when the reader
// leaves within the threshold: up_read's fetch_add (T), the spinner's re-load (T), its
// cmpxchg (T) and osq_unlock (L1), the same hand-off as from a writer.
TEST(RwSem, a_writer_spins_on_a_reader_that_leaves_within_the_threshold) {
    World w;
    const std::vector<Picos> acquired = writers(w, 2, 5_us, /*first_reads=*/true);
    EXPECT_EQ(acquired[0], MEM);
    EXPECT_EQ(acquired[1], MEM + 5_us + kSpinHandoff);
    EXPECT_EQ(w.sem.spin_acquisitions(), 1u);
    EXPECT_EQ(w.sem.rspin_timeouts(), 0u);
    EXPECT_EQ(w.sem.wakeups(), 0u);
}

// Past the threshold the writer marks the lock nonspinnable (a write to sem->owner on the
// count's line), queues, and is woken by the reader's up_read; a writer arriving later in the
// same reader-owned phase does not spin at all, and the first writer owner clears the mark.
TEST(RwSem, past_the_threshold_the_writer_queues_and_later_writers_do_not_spin) {
    World w;
    std::vector<Picos> acquired(3, Picos::max());
    std::vector<Picos> queued(3, Picos::max());
    const Picos arrive[3] = {0_ns, 10_ns, 20_us};
    for (hw::CpuId c = 0; c < 3; ++c) {
        w.k->run_on(c, [&, c](Cpu& cpu) -> sim::Task<> {
            co_await cpu.compute(arrive[c]);
            if (c == 0) {
                co_await w.sem.down_read(cpu);
            } else {
                co_await w.sem.down_write(cpu);
            }
            acquired[c] = cpu.now();
            co_await cpu.compute(40_us);
            if (c == 0) {
                co_await w.sem.up_read(cpu);
            } else {
                co_await w.sem.up_write(cpu);
            }
        });
    }
    w.k->boot();
    w.eng.run_until(20_us);
    EXPECT_EQ(w.sem.rspin_timeouts(), 1u);  // writer 1 gave up at 10 ns + ~10.5 us
    EXPECT_EQ(w.sem.nr_waiters(), 1u);
    w.eng.run_until(21_us);
    EXPECT_EQ(w.sem.nr_waiters(), 2u);  // writer 2 queued at once: no second timeout
    EXPECT_EQ(w.sem.rspin_timeouts(), 1u);
    w.eng.run_until(1_ms);
    EXPECT_GT(acquired[1], MEM + 40_us);
    EXPECT_GT(acquired[2], acquired[1] + 40_us);
    EXPECT_EQ(w.sem.spin_acquisitions(), 0u);
    EXPECT_EQ(w.sem.wakeups(), 2u);
    EXPECT_EQ(w.sem.count().peek(), 0u);
}
