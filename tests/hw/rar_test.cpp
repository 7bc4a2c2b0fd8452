// Intel RAR target microcode on toy4 (CPUs 0,1 = cores 0,1 and 2,3 their SMT siblings;
// lines: l1_hit 1 ns, smt 10 ns, same_l3 50 ns, memory 100 ns; rar_per_payload 100 ns,
// 64 slots = 8 action words of 8 slots). Deliveries are made directly (mocked fabric).
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"
#include "hw/intc/delivery_fabric.h"
#include "hw/machine.h"
#include "hw/tlb/rar.h"
#include "hw/tlb/tlb.h"
#include "sim/engine.h"
#include "sim/signal.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::RarPayload;
using hw::RarSubtype;
using sim::Picos;

namespace {

constexpr uint64_t kPage = 4096;

struct Rig {
    hw::MachineSpec spec = ipisim::test::load_test_machine("toy4");
    sim::Engine eng;
    hw::Memory mem{eng, spec.topology, spec.coherence};
    std::vector<std::unique_ptr<hw::Cpu>> cpus;
    std::vector<std::unique_ptr<hw::Tlb>> tlbs;
    std::unique_ptr<hw::Rar> rar;

    Rig() {
        std::vector<hw::Cpu*> cp;
        std::vector<hw::Tlb*> tp;
        for (hw::CpuId c = 0; c < spec.topology.nr_cpus(); ++c) {
            cpus.push_back(std::make_unique<hw::Cpu>(eng, c, spec));
            tlbs.push_back(std::make_unique<hw::Tlb>(c, spec.tlb.entries));
            cp.push_back(cpus.back().get());
            tp.push_back(tlbs.back().get());
        }
        rar = std::make_unique<hw::Rar>(eng, spec, mem, cp, tp);
    }
    void start(hw::CpuId c, sim::Proc body) {
        cpus[c]->set_running(&eng.spawn("cpu" + std::to_string(c), std::move(body)));
    }
};

RarPayload pages(hw::Pcid pcid, uint64_t va, uint8_t nr) {
    RarPayload p;
    p.subtype = RarSubtype::addr;
    p.pcid = pcid;
    p.linear_address = va;
    p.num_pages = nr;
    return p;
}

RarPayload whole_pcid(hw::Pcid pcid) {
    RarPayload p;
    p.subtype = RarSubtype::pcid;
    p.pcid = pcid;
    return p;
}

sim::Proc computing(hw::Cpu& cpu, Picos t, Picos* done) {
    co_await cpu.compute(t);
    *done = cpu.now();
}

}  // namespace

TEST(Rar, a_delivery_processes_every_pending_payload_writes_success_and_invalidates_the_tlb) {
    Rig rig;
    hw::Tlb& tlb = *rig.tlbs[1];
    for (uint64_t p = 4; p < 8; ++p) tlb.fill(1, p * kPage, 0_ns);
    tlb.fill(2, 0, 0_ns);
    tlb.fill(3, 0, 0_ns);
    Picos target_done;
    rig.start(1, computing(*rig.cpus[1], 10_us, &target_done));
    auto sender = [&]() -> sim::Proc {
        co_await rig.rar->write_payload(0, 0, pages(1, 5 * kPage, 2));  // uncached line: 100 ns
        co_await rig.rar->write_payload(0, 3, whole_pcid(2));           // 100 ns
        co_await rig.rar->set_action_pending(0, 1, 0);                  // CPU 1's line, owned by CPU 1: 50 ns
        co_await rig.rar->set_action_pending(0, 1, 3);                  // now exclusive to CPU 0: 1 ns
        EXPECT_EQ(rig.eng.now(), 251_ns);
        EXPECT_EQ(rig.rar->peek_action(1, 0), hw::kRarPending);
        rig.rar->deliver(1, 0);
        EXPECT_TRUE(rig.rar->processing(1));
    };
    rig.start(0, sender());
    rig.eng.run();
    // Microcode from 251 ns: word 0 (50) | slot 0: payload 50 + 100 + SUCCESS store 50 |
    // slot 3: payload 50 + 100 + store 1 (exclusive now) | words 1..7: 7 L1 hits = 408 ns.
    EXPECT_EQ(rig.rar->stats(1).stolen, 408_ns);
    EXPECT_EQ(target_done, 10_us + 408_ns);
    EXPECT_FALSE(rig.rar->processing(1));
    EXPECT_EQ(rig.rar->peek_action(1, 0), hw::kRarSuccess);
    EXPECT_EQ(rig.rar->peek_action(1, 3), hw::kRarSuccess);
    EXPECT_EQ(tlb.find(1, 4 * kPage) != nullptr, true);
    EXPECT_EQ(tlb.find(1, 5 * kPage), nullptr);
    EXPECT_EQ(tlb.find(1, 6 * kPage), nullptr);
    EXPECT_NE(tlb.find(1, 7 * kPage), nullptr);
    EXPECT_EQ(tlb.find(2, 0), nullptr);
    EXPECT_NE(tlb.find(3, 0), nullptr);
    EXPECT_EQ(rig.rar->stats(1).payloads, 2u);
    EXPECT_EQ(rig.rar->stats(1).scans, 1u);
    EXPECT_EQ(rig.cpus[1]->irqs_taken(), 0u);
    EXPECT_EQ(rig.rar->stats(2).received, 0u);
}

// tlb.rar_entry: the microcode takes the core once per processing, before its first scan (the
// pipeline drained at an instruction boundary, refilled after). A delivery during the entry
// needs no rescan (the scan has not begun, and sees its PENDING byte) and no second entry.
TEST(Rar, the_microcode_takes_the_running_core_once_per_processing_for_its_entry) {
    Rig rig;
    rig.spec.tlb.rar_entry = 30_ns;
    Picos target_done;
    rig.start(1, computing(*rig.cpus[1], 10_us, &target_done));
    auto sender = [&]() -> sim::Proc {
        co_await rig.rar->write_payload(0, 0, pages(1, 5 * kPage, 2));  // as in the first test: 251 ns
        co_await rig.rar->write_payload(0, 3, whole_pcid(2));
        co_await rig.rar->set_action_pending(0, 1, 0);
        co_await rig.rar->set_action_pending(0, 1, 3);
        rig.rar->deliver(1, 0);
        co_await rig.cpus[0]->compute(10_ns);
        EXPECT_TRUE(rig.rar->processing(1));  // inside the entry, 251-281 ns
        rig.rar->deliver(1, 0);
    };
    rig.start(0, sender());
    rig.eng.run();
    // Entry 30 ns; then the first test's scan from 281 ns (408 ns). One entry, one scan.
    EXPECT_EQ(rig.rar->stats(1).received, 2u);
    EXPECT_EQ(rig.rar->stats(1).scans, 1u);
    EXPECT_EQ(rig.rar->stats(1).rescans, 0u);
    EXPECT_EQ(rig.rar->stats(1).payloads, 2u);
    EXPECT_EQ(rig.rar->stats(1).stolen, 30_ns + 408_ns);
    EXPECT_EQ(target_done, 10_us + 438_ns);
    EXPECT_EQ(rig.rar->peek_action(1, 3), hw::kRarSuccess);
}

TEST(Rar, the_sender_sees_success_when_it_polls_its_slot) {
    Rig rig;
    Picos seen;
    auto sender = [&]() -> sim::Proc {
        co_await rig.rar->write_payload(0, 0, pages(1, 0, 1));
        co_await rig.rar->set_action_pending(0, 1, 0);
        rig.rar->deliver(1, 0);
        const uint64_t w = co_await rig.mem.wait_until(
            0, rig.rar->action_word(1, 0), [](uint64_t v) { return hw::Rar::action_byte(v, 0) != hw::kRarPending; });
        EXPECT_EQ(hw::Rar::action_byte(w, 0), hw::kRarSuccess);
        EXPECT_EQ(co_await rig.rar->read_action(0, 1, 0), hw::kRarSuccess);
        seen = rig.eng.now();
    };
    rig.start(0, sender());
    rig.eng.run();
    // 150: payload 100 + PENDING 50. Microcode: word 0 shared from CPU 0 (50) -> 200, payload
    // (50) -> 250, work -> 350, SUCCESS store (invalidates CPU 0's copy: 50) -> 400; the
    // spinner's re-load fetches it from CPU 1: 450; read_action is then an L1 hit: 451.
    EXPECT_EQ(seen, 451_ns);
}

TEST(Rar, a_second_delivery_during_processing_causes_a_rescan_not_a_parallel_pass) {
    Rig rig;
    rig.tlbs[1]->fill(1, 0, 0_ns);
    rig.tlbs[1]->fill(2, 0, 0_ns);
    auto first = [&]() -> sim::Proc {
        co_await rig.rar->write_payload(0, 0, pages(1, 0, 1));
        co_await rig.rar->set_action_pending(0, 1, 0);
        rig.rar->deliver(1, 0);  // at 150 ns
    };
    std::vector<bool> processing_at_second;
    auto second = [&]() -> sim::Proc {
        co_await rig.cpus[2]->compute(250_ns);  // the microcode is working on slot 0 now
        co_await rig.rar->write_payload(2, 2, pages(2, 0, 1));
        co_await rig.rar->set_action_pending(2, 1, 2);
        processing_at_second.push_back(rig.rar->processing(1));
        rig.rar->deliver(1, 2);
    };
    rig.start(0, first());
    rig.start(2, second());
    rig.eng.run();
    EXPECT_EQ(processing_at_second, std::vector<bool>{true});
    EXPECT_EQ(rig.rar->stats(1).received, 2u);
    EXPECT_EQ(rig.rar->stats(1).scans, 2u);
    EXPECT_EQ(rig.rar->stats(1).rescans, 1u);
    EXPECT_EQ(rig.rar->stats(1).payloads, 2u);
    EXPECT_EQ(rig.rar->peek_action(1, 2), hw::kRarSuccess);
    EXPECT_EQ(rig.tlbs[1]->size(), 0u);
    EXPECT_FALSE(rig.rar->processing(1));
}

TEST(Rar, a_target_with_irqs_disabled_still_processes_the_request) {
    Rig rig;
    rig.tlbs[1]->fill(1, 0, 0_ns);
    Picos target_done;
    auto target = [&]() -> sim::Proc {
        rig.cpus[1]->local_irq_disable();
        co_await rig.cpus[1]->compute(5_us);
        target_done = rig.eng.now();
        co_await rig.cpus[1]->local_irq_enable();
    };
    rig.start(1, target());
    auto sender = [&]() -> sim::Proc {
        co_await rig.rar->write_payload(0, 0, pages(1, 0, 1));
        co_await rig.rar->set_action_pending(0, 1, 0);
        rig.rar->deliver(1, 0);
    };
    rig.start(0, sender());
    rig.eng.run();
    EXPECT_EQ(rig.tlbs[1]->size(), 0u);
    EXPECT_EQ(rig.rar->peek_action(1, 0), hw::kRarSuccess);
    EXPECT_EQ(target_done, 5_us + rig.rar->stats(1).stolen);
    EXPECT_GT(rig.rar->stats(1).stolen, 0_ns);
}

TEST(Rar, an_idle_target_wakes_with_its_exit_latency_and_loses_no_compute_time) {
    Rig rig;
    rig.tlbs[1]->fill(1, 0, 0_ns);
    rig.cpus[1]->set_idle_state(1);  // C1: 1 us exit
    Picos cleared;
    auto target = [&]() -> sim::Proc { co_await rig.cpus[1]->idle(); };
    rig.start(1, target());
    auto sender = [&]() -> sim::Proc {
        co_await rig.rar->write_payload(0, 0, pages(1, 0, 1));
        co_await rig.rar->set_action_pending(0, 1, 0);
        rig.rar->deliver(1, 0);  // at 150 ns
        co_await rig.mem.wait_until(0, rig.rar->action_word(1, 0),
                                    [](uint64_t v) { return hw::Rar::action_byte(v, 0) != hw::kRarPending; });
        cleared = rig.eng.now();
    };
    rig.start(0, sender());
    rig.eng.run_until(10_us);
    EXPECT_EQ(cleared, 450_ns + 1_us);    // the busy timeline (no read_action), after the C1 exit
    EXPECT_TRUE(rig.cpus[1]->in_idle());  // no interrupt: the idle loop never ran
    EXPECT_EQ(rig.cpus[1]->irqs_taken(), 0u);
}

TEST(Rar, an_idle_target_wakes_with_its_wake_latency_not_the_declared_exit_latency) {
    Rig rig;
    rig.spec.idle[1].wake_latency = 300_ns;  // C1 declares 1 us
    rig.tlbs[1]->fill(1, 0, 0_ns);
    rig.cpus[1]->set_idle_state(1);
    Picos cleared;
    auto target = [&]() -> sim::Proc { co_await rig.cpus[1]->idle(); };
    rig.start(1, target());
    auto sender = [&]() -> sim::Proc {
        co_await rig.rar->write_payload(0, 0, pages(1, 0, 1));
        co_await rig.rar->set_action_pending(0, 1, 0);
        rig.rar->deliver(1, 0);  // at 150 ns
        co_await rig.mem.wait_until(0, rig.rar->action_word(1, 0),
                                    [](uint64_t v) { return hw::Rar::action_byte(v, 0) != hw::kRarPending; });
        cleared = rig.eng.now();
    };
    rig.start(0, sender());
    rig.eng.run_until(10_us);
    EXPECT_EQ(cleared, 450_ns + 300_ns);  // the busy timeline, after the 300 ns wake
}

TEST(Rar, a_payload_of_more_than_63_pages_is_rejected) {
    Rig rig;
    bool threw = false;
    auto sender = [&]() -> sim::Proc {
        try {
            co_await rig.rar->write_payload(0, 0, pages(1, 0, 64));
        } catch (const std::logic_error&) {
            threw = true;
        }
    };
    rig.start(0, sender());
    rig.eng.run();
    EXPECT_TRUE(threw);
}

TEST(Rar, a_rar_mode_message_through_the_delivery_fabric_runs_the_microcode_at_delivery) {
    Rig rig;
    std::vector<hw::Cpu*> cp;
    for (auto& c : rig.cpus) cp.push_back(c.get());
    hw::DeliveryFabric fabric(rig.eng, rig.spec, cp);
    fabric.set_rar_hook([&](hw::CpuId target, hw::CpuId sender) { rig.rar->deliver(target, sender); });
    rig.tlbs[1]->fill(1, 0, 0_ns);
    Picos cleared;
    auto sender = [&]() -> sim::Proc {
        co_await rig.rar->write_payload(0, 0, pages(1, 0, 1));
        co_await rig.rar->set_action_pending(0, 1, 0);
        fabric.send(0, 1, 0xe0, hw::DeliveryMode::rar);  // RAR_VECTOR, APIC_DM_RAR; at 150 ns
        co_await rig.mem.wait_until(0, rig.rar->action_word(1, 0),
                                    [](uint64_t v) { return hw::Rar::action_byte(v, 0) != hw::kRarPending; });
        cleared = rig.eng.now();
    };
    rig.start(0, sender());
    rig.eng.run();
    EXPECT_EQ(cleared, 450_ns + 500_ns);  // the direct-delivery timeline after the 500 ns fabric
    EXPECT_EQ(rig.tlbs[1]->size(), 0u);
    EXPECT_EQ(rig.cpus[1]->irqs_taken(), 0u);
    EXPECT_EQ(fabric.stats().rar_messages, 1u);
}
