// CPU contracts on toy machines: preemption by IRQs, IRQs-off pending, idle exit latency,
// polling wake-ups, SMT sharing, stolen time, accounting.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "sim/signal.h"
#include "support/raise_at.h"
#include "support/test_machine.h"
#include "support/timed_waits.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using sim::Picos;
using test::raise_at;

namespace {

// Handler that computes `t` (toy2: entry 200 + eoi 50 + handler + exit 100).
Cpu::IrqHandler handler_of(Picos t, std::vector<Picos>* entered = nullptr) {
    return [t, entered](Cpu& c, const sim::Interrupt&) -> sim::Task<> {
        if (entered != nullptr) entered->push_back(c.now());
        co_await c.compute(t);
    };
}

}  // namespace

TEST(Cpu, an_ipi_preempts_a_compute_which_finishes_late_by_exactly_the_interrupt_time) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    std::vector<Picos> entered;
    cpu.set_irq_handler(0xfb, "sysvec_call_function_single", handler_of(100_ns, &entered));
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(1000_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    eng.run();
    // Handler body starts after entry (200) + EOI (50); the IRQ costs 200+50+100+100 = 450 ns.
    EXPECT_EQ(entered, (std::vector<Picos>{550_ns}));
    EXPECT_EQ(finished, 1450_ns);
    EXPECT_EQ(cpu.irqs_taken(), 1u);
}

TEST(Cpu, a_compute_nothing_precedes_ends_in_place_with_the_fingerprint_of_its_timer) {
    // Alone on the machine, two computes end without a queue trip; the run's fingerprint is that
    // of a process waiting the same times as events. An interrupt due before a compute's end
    // still preempts it (the test above).
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    std::vector<Picos> ends;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(100_ns);
        ends.push_back(eng.now());
        co_await cpu.compute(50_ns);
        ends.push_back(eng.now());
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    eng.run();
    EXPECT_EQ(ends, (std::vector<Picos>{100_ns, 150_ns}));
    EXPECT_EQ(eng.events_dispatched(), 1U);  // the start
    EXPECT_EQ(eng.inline_completions(), 2U);
    const test::TimedWaitsRun events = test::run_timed_waits({100_ns, 50_ns});
    EXPECT_EQ(events.events_dispatched, 3U);
    EXPECT_EQ(eng.fingerprint(), events.fingerprint);
}

TEST(Cpu, with_irqs_disabled_an_ipi_stays_pending_until_local_irq_enable) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    std::vector<Picos> entered;
    cpu.set_irq_handler(0xfb, "ipi", handler_of(100_ns, &entered));
    Picos finished;
    auto body = [&]() -> sim::Proc {
        cpu.local_irq_disable();
        co_await cpu.compute(1000_ns);  // not preempted
        EXPECT_TRUE(entered.empty());
        co_await cpu.local_irq_enable();  // the pending IPI runs here
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    eng.run();
    EXPECT_EQ(entered, (std::vector<Picos>{1250_ns}));
    EXPECT_EQ(finished, 1450_ns);
}

TEST(Cpu, two_ipis_arriving_together_are_both_handled_back_to_back) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    std::vector<Picos> entered;
    cpu.set_irq_handler(0xfb, "a", handler_of(100_ns, &entered));
    cpu.set_irq_handler(0xfc, "b", handler_of(100_ns, &entered));
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(1000_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    raise_at(eng, 300_ns, cpu, 0xfc);
    eng.run();
    // The second arrives while the first is being handled (IRQs off): it runs right after.
    EXPECT_EQ(entered, (std::vector<Picos>{550_ns, 1000_ns}));
    EXPECT_EQ(finished, 1900_ns);
}

TEST(Cpu, an_idle_cpu_pays_its_c_state_exit_latency_before_the_handler) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_idle_state(1);  // C1: 1 us exit latency
    std::vector<Picos> entered;
    cpu.set_irq_handler(0xfb, "ipi", handler_of(0_ns, &entered));
    Picos back;
    auto body = [&]() -> sim::Proc {
        co_await cpu.idle();
        back = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 2000_ns, cpu, 0xfb);
    eng.run();
    EXPECT_EQ(entered, (std::vector<Picos>{3250_ns}));  // 2000 + 1000 exit + 200 entry + 50 EOI
    EXPECT_EQ(back, 3350_ns);                           // + 100 exit
    EXPECT_EQ(cpu.profile().time_in(hw::Activity::idle), 2000_ns + 1000_ns);
}

TEST(Cpu, an_idle_cpu_pays_its_c_state_wake_latency_not_the_declared_exit_latency) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    spec.idle[1].wake_latency = 400_ns;  // C1 declares 1 us, the bound; the wake takes 400 ns
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_idle_state(1);
    std::vector<Picos> entered;
    cpu.set_irq_handler(0xfb, "ipi", handler_of(0_ns, &entered));
    Picos back;
    auto body = [&]() -> sim::Proc {
        co_await cpu.idle();
        back = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 2000_ns, cpu, 0xfb);
    eng.run();
    EXPECT_EQ(entered, (std::vector<Picos>{2650_ns}));  // 2000 + 400 wake + 200 entry + 50 EOI
    EXPECT_EQ(back, 2750_ns);                           // + 100 exit
    EXPECT_EQ(cpu.profile().time_in(hw::Activity::idle), 2000_ns + 400_ns);
}

TEST(Cpu, a_polling_idle_cpu_is_woken_without_an_interrupt) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_idle_state(0);  // POLL
    Picos back;
    auto body = [&]() -> sim::Proc {
        co_await cpu.idle();
        back = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    bool woke = false;
    auto waker = [&]() -> sim::Proc {
        co_await sim::delay(eng, 700_ns);
        EXPECT_TRUE(cpu.polling());
        woke = cpu.wake_polling();
    };
    eng.spawn("waker", waker());
    eng.run();
    EXPECT_TRUE(woke);
    EXPECT_EQ(back, 700_ns);
    EXPECT_EQ(cpu.irqs_taken(), 0u);
    EXPECT_FALSE(cpu.wake_polling());  // not polling any more
}

TEST(Cpu, smt_siblings_computing_together_share_the_core) {
    // A 1-core, 2-thread machine whose busy siblings each run at 50%.
    std::string text = R"(
description = "smt toy"
arch = "x86"
vendor = "generic"
clock = "1 GHz"
[topology]
packages = 1
dies_per_package = 1
l3_per_die = 1
cores_per_l3 = 1
threads_per_core = 2
numa_nodes = 1
cpu_numbering = "smt_last"
hw_id = "apic"
[coherence]
l1_hit = "1 ns"
smt = "10 ns"
memory_local = "100 ns"
line_occupancy = "0 ns"
fill_buffers = 1
[cpu]
irq_entry = "200 ns"
irq_exit = "100 ns"
eoi = "50 ns"
irq_pollution = "0 ns"
context_switch = "1 us"
syscall = "100 ns"
handle_mm_fault = "3756 ns"
rdmsr = "100 ns"
wrmsr = "100 ns"
rdmsr_qm_ctr = "200 ns"
smt_throughput_percent = 50
[[idle]]
name = "C1"
exit_latency = "1 us"
wake_latency = "1 us"
target_residency = "2 us"
mechanism = "hlt"
[intc]
kind = "x2apic_phys"
[intc.params]
icr_write = "100 ns"
fence = "50 ns"
[intc.fabric]
self = "500 ns"
smt = "500 ns"
capacity = 64
accept = "20 ns"
router_service = "0 ns"
[tlb]
entries = 64
invlpg = "100 ns"
full_flush = "100 ns"
invpcid_addr = "200 ns"
invpcid_all = "400 ns"
refill_per_entry = "10 ns"
pcid = true
nr_dyn_asids = 6
invlpgb_count_max = 0
rar_payloads = 0
)";
    config::Document doc = config::Document::parse(text, "smt.toml");
    hw::MachineSpec spec = hw::load_machine(doc, "smt");
    sim::Engine eng;
    Cpu a(eng, 0, spec);
    Cpu b(eng, 1, spec);
    a.add_sibling(&b);
    b.add_sibling(&a);
    Picos a_done, b_done;
    auto pa = [&]() -> sim::Proc {
        co_await a.compute(1000_ns);
        a_done = eng.now();
    };
    auto pb = [&]() -> sim::Proc {
        co_await sim::delay(eng, 500_ns);
        co_await b.compute(200_ns);
        b_done = eng.now();
    };
    a.set_running(&eng.spawn("a", pa()));
    b.set_running(&eng.spawn("b", pb()));
    eng.run();
    // b computes 200 ns of work at 50% from 500 to 900; a did 500 alone, 200 shared (at 50%),
    // then the remaining 300 alone: done at 1200.
    EXPECT_EQ(b_done, 900_ns);
    EXPECT_EQ(a_done, 1200_ns);
}

TEST(Cpu, stolen_time_delays_a_compute_in_progress) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.compute(1000_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    auto thief = [&]() -> sim::Proc {
        co_await sim::delay(eng, 400_ns);
        cpu.steal(150_ns, hw::profile_label("microcode"));
    };
    eng.spawn("thief", thief());
    eng.run();
    EXPECT_EQ(finished, 1150_ns);
    // The profile shows the stolen work under its own label, not as the displaced compute.
    cpu.profile().settle(eng.now());
    EXPECT_EQ(cpu.profile().time_in_label(hw::profile_label("microcode")), 150_ns);
    EXPECT_EQ(cpu.profile().total(), 1150_ns);
}

TEST(Cpu, irq_time_is_charged_to_the_handler_and_the_rest_to_the_interrupted_function) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    cpu.set_irq_handler(0xfb, "sysvec_call_function_single", handler_of(100_ns));
    const uint32_t work = hw::profile_label("work");
    auto body = [&]() -> sim::Proc {
        auto scope = cpu.function(work, hw::Activity::kernel);
        co_await cpu.compute(1000_ns);
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    eng.run();
    cpu.profile().settle(eng.now());
    EXPECT_EQ(cpu.profile().time(work, hw::Activity::kernel), 1000_ns);
    EXPECT_EQ(cpu.profile().time(hw::profile_label("sysvec_call_function_single"), hw::Activity::irq), 450_ns);
}

TEST(Cpu, time_stolen_during_a_wait_for_an_event_overlaps_it_and_delays_nothing) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    sim::Signal never;
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await never.wait_for(1000_ns);  // waiting for an event: not computing
        co_await cpu.compute(100_ns);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    auto thief = [&]() -> sim::Proc {
        co_await sim::delay(eng, 700_ns);
        cpu.steal(300_ns, hw::profile_label("microcode"));  // ran 400..700, during the wait
    };
    eng.spawn("thief", thief());
    eng.run();
    EXPECT_EQ(finished, 1100_ns);
}

TEST(Cpu, time_stolen_during_a_stall_delays_its_end) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    Picos finished;
    auto body = [&]() -> sim::Proc {
        co_await cpu.stall(500_ns);  // instruction-level work: displaced by the microcode
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    auto thief = [&]() -> sim::Proc {
        co_await sim::delay(eng, 400_ns);
        cpu.steal(300_ns, hw::profile_label("microcode"));  // ran 100..400, inside the stall
    };
    eng.spawn("thief", thief());
    eng.run();
    EXPECT_EQ(finished, 800_ns);
}

// A wait on a signal that an interrupt interrupts returns after the handler, so its caller looks
// again at what it waits for: here the handler itself gives the notification, while nobody is
// waiting, and a wait that resumed on its own would never end.
TEST(Cpu, a_wait_on_a_signal_returns_after_an_interrupt_so_a_notification_given_meanwhile_is_not_lost) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    Cpu cpu(eng, 0, spec);
    sim::Signal sig;
    bool ready = false;
    cpu.set_irq_handler(0xfb, "ipi", [&](Cpu& c, const sim::Interrupt&) -> sim::Task<> {
        co_await c.compute(100_ns);
        ready = true;
        sig.notify_all();
    });
    Picos finished = Picos::max();
    auto body = [&]() -> sim::Proc {
        while (!ready) co_await cpu.wait_on(sig);
        finished = eng.now();
    };
    cpu.set_running(&eng.spawn("cpu0", body()));
    raise_at(eng, 300_ns, cpu, 0xfb);
    eng.run();
    // 300 + entry 200 + EOI 50 + handler 100 + exit 100.
    EXPECT_EQ(finished, 750_ns);
}
