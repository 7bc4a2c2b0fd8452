// Pre-5.19 aperfmperf (arch_freq_prepare_all, aperfmperf_get_khz) on toy machines.
//
// toy2: 1 GHz, CPUs 0-1 sharing an L3, x2APIC physical (fence 50 + ICR 100 ns), delivery
// 500 ns, IRQ entry 200 / EOI 50 / exit 100 ns, C1 exit 1 us, context switch 1 us.
// toy8: 2 packages x 2 L3 x 2 CPUs, x2APIC cluster. The opener runs on CPU 0; "busy" CPUs run
// a compute loop; the others idle in C1 (RCU-idle). Samples start at time 0, so an open at
// 20 ms finds them 20 ms old (stale: refresh), one at 1.5 s older than 1 s.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hw/platform.h"
#include "kernel/aperfmperf/aperfmperf.h"
#include "kernel/aperfmperf/msleep.h"
#include "kernel/kernel.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::FreqPrepareVariant;
using sim::Picos;

namespace {

struct World : test::KernelWorld {
    std::unique_ptr<kernel::Aperfmperf> amp;
    explicit World(const std::string& machine) : KernelWorld(machine) {
        amp = std::make_unique<kernel::Aperfmperf>(*plat, k->smp());
        for (hw::CpuId c = 0; c < plat->nr_cpus(); ++c) plat->cpu(c).set_idle_state(1);  // C1
    }
    ~World() override {
        eng.shutdown();
        amp.reset();
    }
    void busy(hw::CpuId c) {
        k->run_on(c, [](Cpu& cpu) -> sim::Task<> {
            for (;;) co_await cpu.compute(1_s);
        });
    }
    // Runs `body` on CPU 0 at `start`, then stops the engine.
    template <class Body>
    void open_at(Picos start, Body body) {
        k->run_on(0, [this, start, body](Cpu& cpu) -> sim::Task<> {
            co_await cpu.compute(start);
            co_await body(cpu);
            eng.stop();
        });
        k->boot();
        eng.run();
    }
    const kernel::SmpStats& smp() { return k->smp().stats(); }
    Picos spin(hw::CpuId c) {
        return plat->cpu(c).profile().time(hw::profile_label("csd_lock_wait"), hw::Activity::spin);
    }
};

// A world whose CPU 0 opens at `start` with the given variant and busy CPUs; `d` receives the
// prepare_all latency.
std::unique_ptr<World> open_once(const std::string& machine, FreqPrepareVariant v, const std::vector<hw::CpuId>& busy,
                                 Picos start, Picos& d) {
    auto w = std::make_unique<World>(machine);
    w->amp->set_variant(v);
    for (hw::CpuId c : busy) w->busy(c);
    World* wp = w.get();
    w->open_at(start, [wp, &d](Cpu& cpu) -> sim::Task<> {
        const Picos t0 = cpu.now();
        co_await wp->amp->arch_freq_prepare_all(cpu);
        d = cpu.now() - t0;
    });
    return w;
}

}  // namespace

TEST(Aperfmperf, a_fresh_sample_causes_no_ipi) {
    World w("toy2");
    w.busy(1);
    uint32_t khz = 0;
    w.open_at(20_ms, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.amp->arch_freq_prepare_all(cpu);  // 20 ms old: one async IPI to CPU 1
        co_await cpu.compute(100_us);                // CPU 1 refreshed its sample meanwhile
        co_await w.amp->arch_freq_prepare_all(cpu);
        khz = co_await w.amp->aperfmperf_get_khz(cpu, 1);
    });
    EXPECT_EQ(w.smp().ipis_single, 1u);
    EXPECT_EQ(w.amp->stats().calls_sync, 0u);
    EXPECT_EQ(w.amp->stats().skipped_fresh, 3u);  // CPUs 0 and 1 in the second open, CPU 1 read
    // No frequency scaling: cpu_khz, up to the skew of the two RDMSRs over the 20 ms delta.
    EXPECT_NEAR(khz, 1'000'000u, 10u);
    EXPECT_GT(w.amp->sample_time(1), 20_ms);
}

TEST(Aperfmperf, a_stale_sample_causes_one_async_ipi_and_the_next_async_call_spins_in_csd_lock) {
    Picos d;
    auto w = open_once("toy8", FreqPrepareVariant::serial_single, {1, 2}, 20_ms, d);
    EXPECT_EQ(w->smp().ipis_single, 2u);
    EXPECT_EQ(w->amp->stats().calls_async, 3u);  // CPU 0 itself (local), 1 and 2
    EXPECT_EQ(w->amp->stats().msleeps, 0u);
    // The call to CPU 2 waited in csd_lock until CPU 1 took the IPI and released csd_data:
    // at least delivery 500 + IRQ entry 200 + EOI 50 ns of spinning.
    EXPECT_GT(w->spin(0), 750_ns);
    EXPECT_GT(d, w->spin(0));
    // Async: prepare_all returned before CPU 2 snapshotted (it needs another 750 ns at least).
    EXPECT_LT(w->amp->sample_time(2), 20_ms);
    EXPECT_TRUE(w->amp->scfpending(2));
}

TEST(Aperfmperf, rcu_idle_cpus_are_skipped_without_an_ipi) {
    World w("toy8");  // every CPU but the opener idles in C1
    uint32_t khz = 1;
    w.open_at(20_ms, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.amp->arch_freq_prepare_all(cpu);
        khz = co_await w.amp->aperfmperf_get_khz(cpu, 5);
    });
    EXPECT_EQ(w.smp().ipis_single + w.smp().ipis_many, 0u);
    EXPECT_EQ(w.amp->stats().skipped_idle, 8u);  // 7 in prepare_all, CPU 5 in get_khz
    EXPECT_EQ(khz, 0u);
    for (hw::CpuId c = 1; c < 8; ++c) EXPECT_EQ(w.plat->cpu(c).irqs_taken(), 0u);
}

TEST(Aperfmperf, scfpending_prevents_a_second_async_ipi_while_one_is_pending) {
    World w("toy2");
    // CPU 1 runs with IRQs off from 19.99 ms to 20.19 ms: the first IPI stays pending.
    w.k->run_on(1, [](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(19'990_us);
        cpu.local_irq_disable();
        co_await cpu.compute(200_us);
        co_await cpu.local_irq_enable();
        for (;;) co_await cpu.compute(1_s);
    });
    bool pending_between = false;
    w.open_at(20_ms, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.amp->arch_freq_prepare_all(cpu);
        co_await cpu.compute(50_us);
        pending_between = w.amp->scfpending(1);
        co_await w.amp->arch_freq_prepare_all(cpu);  // CPU 1 still 20 ms old, but pending
        co_await cpu.compute(300_us);
    });
    EXPECT_TRUE(pending_between);
    EXPECT_EQ(w.smp().ipis_single, 1u);
    EXPECT_EQ(w.amp->stats().skipped_pending, 1u);
    EXPECT_EQ(w.plat->cpu(1).irqs_taken(), 1u);
    EXPECT_FALSE(w.amp->scfpending(1));  // released by the snapshot once IRQs were back on
    EXPECT_GT(w.amp->sample_time(1), 20'190_us);
}

TEST(Aperfmperf, msleep_ends_on_the_jiffy_tick_after_the_rounded_up_timeout) {
    // msleep(10) = schedule_timeout(msecs_to_jiffies(10) + 1)
    EXPECT_EQ(kernel::msleep_expiry(Picos(1'500'300'000'000ULL), 10, 1000), 1511_ms);  // 11 jiffies
    EXPECT_EQ(kernel::msleep_expiry(Picos(1'500'300'000'000ULL), 10, 250), 1516_ms);   // 3 + 1 of 4 ms
    EXPECT_EQ(kernel::msecs_to_jiffies(10, 300), 3u);
}

TEST(Aperfmperf, a_sample_older_than_a_second_makes_serial_single_sleep_10_ms) {
    Picos d;
    auto w = open_once("toy2", FreqPrepareVariant::serial_single, {1}, 1500_ms, d);
    EXPECT_EQ(w->amp->stats().msleeps, 1u);
    EXPECT_EQ(w->amp->stats().stale, 2u);  // CPUs 0 and 1
    // The loop ends a few us after 1500 ms: the timer fires at 1511 ms, then C1 exit (1 us),
    // the timer interrupt and the switch back (1 us) follow.
    EXPECT_GT(d, 11_ms - 10_us);
    EXPECT_LT(d, 11_ms + 5_us);
    EXPECT_GE(w->amp->stats().msleep_time, 11_ms - 10_us + 2_us);
}

TEST(Aperfmperf, a_sample_older_than_a_second_makes_many_wait_for_the_fan_out_without_sleeping) {
    Picos d;
    auto w = open_once("toy8", FreqPrepareVariant::many, {1, 2, 3}, 1500_ms, d);
    EXPECT_EQ(w->amp->stats().msleeps, 0u);
    EXPECT_EQ(w->amp->stats().calls_many, 1u);
    EXPECT_LT(d, 20_us);
    // Waited: every target had refreshed its sample when prepare_all returned.
    for (hw::CpuId c : {1u, 2u, 3u}) {
        EXPECT_GT(w->amp->sample_time(c), 1500_ms) << "cpu " << c;
        EXPECT_FALSE(w->amp->scfpending(c));
    }
    // smp_call_function_many() does not run the callback on the caller: CPU 0 stays pending.
    EXPECT_TRUE(w->amp->scfpending(0));
}

TEST(Aperfmperf, many_without_a_stale_sample_does_not_wait) {
    Picos d;
    auto w = open_once("toy8", FreqPrepareVariant::many, {1, 2, 3}, 20_ms, d);
    EXPECT_LT(d, 20_us);
    EXPECT_EQ(w->amp->sample_time(3), Picos{});  // not yet refreshed on return
    EXPECT_TRUE(w->amp->scfpending(3));
}

TEST(Aperfmperf, many_sends_one_call_function_fan_out_and_beats_the_serial_loop) {
    const std::vector<hw::CpuId> busy{1, 2, 3, 4, 5, 6, 7};
    Picos serial;
    Picos many;
    {
        auto w = open_once("toy8", FreqPrepareVariant::serial_single, busy, 20_ms, serial);
        EXPECT_EQ(w->smp().ipis_single, 7u);
        EXPECT_EQ(w->k->irqchip().stats().sends, 7u);
    }
    auto w = open_once("toy8", FreqPrepareVariant::many, busy, 20_ms, many);
    EXPECT_EQ(w->smp().ipis_single, 0u);
    EXPECT_EQ(w->smp().ipis_many, 7u);
    EXPECT_EQ(w->k->irqchip().stats().sends, 1u);  // one send_IPI_mask(CALL_FUNCTION_VECTOR)
    EXPECT_LT(many, serial);
}
