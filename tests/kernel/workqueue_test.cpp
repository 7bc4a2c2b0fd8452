// Workqueue and smp_call_on_cpu scenarios on toy machines (see sched_test.cpp for toy2).
#include <gtest/gtest.h>

#include <string>

#include "hw/platform.h"
#include "kernel/kernel.h"
#include "kernel/sched/sched.h"
#include "kernel/workqueue/workqueue.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::Thread;
using sim::Picos;

namespace {

struct World : test::KernelWorld {
    std::unique_ptr<kernel::Sched> sched;
    std::unique_ptr<kernel::Workqueue> wq;
    explicit World(const std::string& machine) : KernelWorld(machine) {
        sched = std::make_unique<kernel::Sched>(*k);
        wq = std::make_unique<kernel::Workqueue>(*sched);
    }
    ~World() override {
        eng.shutdown();
        wq.reset();
        sched.reset();
    }
};

}  // namespace

TEST(Workqueue, queued_work_runs_on_the_target_cpus_kworker) {
    World w("toy2");
    hw::CpuId ran_on = 99;
    kernel::WorkStruct work;
    work.func = [&](Cpu& c) -> sim::Task<> {
        ran_on = c.id();
        EXPECT_EQ(w.sched->current(c.id()), &w.wq->worker(1));
        co_return;
    };
    w.sched->spawn("queuer", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        const bool queued = co_await w.wq->queue_work_on(cpu, 1, work);
        EXPECT_TRUE(queued);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(ran_on, 1u);
    EXPECT_EQ(w.wq->stats().executed, 1u);
    EXPECT_EQ(w.wq->stats().worker_wakeups, 1u);
    // The kworker woke through CPU 1's call_single_queue (CPU 1 was idle).
    EXPECT_EQ(w.sched->stats().wakeups_queued, 1u);
}

TEST(Workqueue, smp_call_on_cpu_to_the_callers_own_cpu_goes_through_the_kworker_and_switches_twice) {
    World w("toy2");
    hw::CpuId ran_on = 99;
    Thread* runner = nullptr;
    int ret = -1;
    Thread& caller = w.sched->spawn("caller", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        co_await cpu.compute(10_us);
        ret = co_await w.wq->smp_call_on_cpu(
            cpu, 0,
            [&](Cpu& c) -> sim::Task<int> {
                ran_on = c.id();
                runner = w.sched->current(c.id());
                co_return 7;
            },
            false);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(ret, 7);
    EXPECT_EQ(ran_on, 0u);
    EXPECT_EQ(runner, &w.wq->worker(0));
    // The caller slept once; caller -> kworker -> caller (then caller -> idle when it exits).
    EXPECT_EQ(caller.nvcsw, 1u);
    EXPECT_EQ(w.wq->worker(0).switches_in, 1u);
    EXPECT_EQ(w.sched->stats().context_switches, 4u);  // + idle -> caller at boot
    // A local wake-up needs neither the queue nor an IPI.
    EXPECT_EQ(w.sched->stats().wakeups_direct, 2u);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 0u);
}

TEST(Workqueue, smp_call_on_cpu_to_another_cpu_sleeps_the_caller) {
    World w("toy2");
    w.plat->cpu(0).set_idle_state(1);
    w.plat->cpu(1).set_idle_state(1);
    hw::CpuId ran_on = 99;
    Thread& caller = w.sched->spawn("caller", 0, [&](Cpu& cpu, Thread&) -> sim::Task<> {
        co_await cpu.compute(10_us);
        co_await w.wq->smp_call_on_cpu(
            cpu, 1,
            [&](Cpu& c) -> sim::Task<int> {
                ran_on = c.id();
                co_await c.compute(5_us);
                co_return 0;
            },
            false);
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(ran_on, 1u);
    EXPECT_EQ(caller.nvcsw, 1u);
    // CPU 0 idled while the kworker ran the function (its 5 us and more).
    EXPECT_GT(w.plat->cpu(0).profile().time_in(hw::Activity::idle), 5_us);
    // The caller's running time excludes the sleep: the function's 5 us are not in it.
    EXPECT_LT(caller.sum_exec_runtime, 10_us + 5_us);
    // Two remote wake-ups (kworker, then caller), each an IPI to an idle CPU.
    EXPECT_EQ(w.sched->stats().wakeups_queued, 2u);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 2u);
}
