// Interrupt pollution on toy2 with irq_pollution = 400 ns (entry 200, EOI 50, exit 100; handlers
// compute 100 ns, so one interrupt costs its own 450 ns): the interrupted code pays the refill
// once per burst when it computes again, under the label "irq_pollution" (IRQ time); an idle
// CPU pays none.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "support/raise_at.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using sim::Picos;
using test::raise_at;

namespace {

hw::MachineSpec toy2_polluting() {
    hw::MachineSpec spec = ipisim::test::load_test_machine("toy2");
    spec.cpu.irq_pollution = 400_ns;
    return spec;
}

Cpu::IrqHandler handler_of(Picos t) {
    return [t](Cpu& c, const sim::Interrupt&) -> sim::Task<> { co_await c.compute(t); };
}

Picos pollution_time(const Cpu& cpu) {
    return cpu.profile().time(hw::profile_label("irq_pollution"), hw::Activity::irq);
}

}  // namespace

TEST(IrqPollution, an_interrupted_compute_pays_the_refill_after_the_handler_under_its_own_label) {
    hw::MachineSpec spec = toy2_polluting();
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_irq_handler(0xfb, "sysvec_call_function", handler_of(100_ns));
    const uint32_t work = hw::profile_label("work");
    Picos finished;
    auto body = [&]() -> sim::Proc {
        auto scope = cpu.function(work, hw::Activity::user);
        co_await cpu.compute(1000_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    eng.run();
    // 300 of work, the IRQ 300..750 (its handler's own compute pays nothing), the refill
    // 750..1150, the remaining 700 of work.
    EXPECT_EQ(finished, 1850_ns);
    EXPECT_EQ(cpu.pollutions(), 1u);
    cpu.profile().settle(eng.now());
    EXPECT_EQ(cpu.profile().time(work, hw::Activity::user), 1000_ns);
    EXPECT_EQ(pollution_time(cpu), 400_ns);
    EXPECT_EQ(cpu.profile().time(hw::profile_label("sysvec_call_function"), hw::Activity::irq), 450_ns);
}

TEST(IrqPollution, two_interrupts_taken_back_to_back_cost_one_refill) {
    hw::MachineSpec spec = toy2_polluting();
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_irq_handler(0xfb, "a", handler_of(100_ns));
    cpu.set_irq_handler(0xfc, "b", handler_of(100_ns));
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(1000_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    raise_at(eng, 300_ns, cpu, 0xfc);
    eng.run();
    // IRQs 300..1200, one refill 1200..1600, then 700 of work.
    EXPECT_EQ(finished, 2300_ns);
    EXPECT_EQ(cpu.pollutions(), 1u);
}

TEST(IrqPollution, an_interrupt_during_the_refill_makes_the_whole_refill_owed_again) {
    hw::MachineSpec spec = toy2_polluting();
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_irq_handler(0xfb, "ipi", handler_of(100_ns));
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(1000_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    raise_at(eng, 900_ns, cpu, 0xfb);  // 150 ns into the refill 750..1150
    eng.run();
    // IRQ 300..750, refill 750..900, IRQ 900..1350, whole refill 1350..1750, 700 of work.
    EXPECT_EQ(finished, 2450_ns);
    EXPECT_EQ(cpu.pollutions(), 2u);
    cpu.profile().settle(eng.now());
    EXPECT_EQ(pollution_time(cpu), 550_ns);
}

TEST(IrqPollution, an_idle_cpu_taking_an_interrupt_pays_no_refill) {
    hw::MachineSpec spec = toy2_polluting();
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_idle_state(1);  // C1: 1 us exit latency
    cpu.set_irq_handler(0xfb, "ipi", handler_of(0_ns));
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(100_ns);  // the context was warm before it idled
        co_await cpu.idle();
        co_await cpu.compute(100_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 2000_ns, cpu, 0xfb);
    eng.run();
    // 2000 + 1000 exit latency + 350 interrupt + 100 of work, no refill.
    EXPECT_EQ(finished, 3450_ns);
    EXPECT_EQ(cpu.pollutions(), 0u);
}

TEST(IrqPollution, an_interrupted_wait_is_not_prolonged_and_the_code_after_it_pays_the_refill) {
    hw::MachineSpec spec = toy2_polluting();
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_irq_handler(0xfb, "ipi", handler_of(100_ns));
    sim::Signal done;
    bool notified = false;
    Picos waited;
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(100_ns);
        while (!notified) co_await cpu.wait_on(done);  // a spin-wait: interrupted at 300, notified at 1000
        waited = eng.now();
        co_await cpu.compute(100_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    auto notifier = [&]() -> sim::Proc {
        co_await sim::delay(eng, 1000_ns);
        notified = true;
        done.notify_all();
    };
    eng.spawn("notifier", notifier());
    eng.run();
    EXPECT_EQ(waited, 1000_ns);
    EXPECT_EQ(finished, 1500_ns);  // refill 1000..1400, then the work
    EXPECT_EQ(cpu.pollutions(), 1u);
}

TEST(IrqPollution, a_refill_owed_when_the_cpu_goes_idle_is_void_after_it) {
    hw::MachineSpec spec = toy2_polluting();
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_idle_state(0);  // POLL: woken without an interrupt
    cpu.set_irq_handler(0xfb, "ipi", handler_of(100_ns));
    sim::Signal done;
    bool notified = false;
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(100_ns);
        while (!notified) co_await cpu.wait_on(done);  // interrupted at 200: a refill is owed
        co_await cpu.idle();                           // ... but idling leaves nothing warm to refill
        co_await cpu.compute(100_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 200_ns, cpu, 0xfb);
    auto waker = [&]() -> sim::Proc {
        co_await sim::delay(eng, 700_ns);
        notified = true;
        done.notify_all();
        co_await sim::delay(eng, 300_ns);
        cpu.wake_polling();
    };
    eng.spawn("waker", waker());
    eng.run();
    EXPECT_EQ(finished, 1100_ns);
    EXPECT_EQ(cpu.pollutions(), 1u);
    cpu.profile().settle(eng.now());
    EXPECT_EQ(pollution_time(cpu), 0_ns);
}
