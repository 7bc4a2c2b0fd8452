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
#include "hw/intc/interrupt_controller.h"
#include "hw/machine.h"
#include "hw/platform.h"
#include "hw/tlb/rar.h"
#include "hw/tlb/tlb.h"
#include "sim/engine.h"
#include "sim/signal.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::RarPayload;
using hw::RarSubtype;
using sim::Picos;

namespace {

constexpr uint64_t kPage = 4096;

struct Rig {
    hw::MachineSpec spec = hw::load_machine(std::string(IPISIM_SOURCE_DIR) + "/machines/toy4.toml");
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

TEST(Rar, without_the_round_trip_a_rar_to_a_busy_target_is_latched_and_costs_the_sender_no_more) {
    // toy4 has intc.params.rar_round_trip = false: the target's local APIC takes every RAR
    // like a fixed interrupt, and one that finds the microcode busy causes a rescan. So the
    // second sender's xAPIC send (1 poll + ICR2 + ICR) takes exactly what a send to an idle
    // target takes, 150 ns (the round trip: the tests below).
    Rig rig;
    std::vector<hw::Cpu*> cp;
    for (auto& c : rig.cpus) cp.push_back(c.get());
    auto intc = hw::make_interrupt_controller(rig.spec, rig.eng, cp);
    std::vector<bool> busy_at_delivery;
    intc->fabric().set_rar_hook([&](hw::CpuId target, hw::CpuId sender) {
        busy_at_delivery.push_back(rig.rar->processing(target));
        rig.rar->deliver(target, sender);
    });
    std::vector<Picos> send_time;
    auto sender = [&](hw::CpuId self, uint32_t slot, Picos delay) -> sim::Proc {
        hw::Cpu& cpu = *rig.cpus[self];
        co_await cpu.compute(delay);
        co_await rig.rar->write_payload(self, slot, pages(1, 0, 1));
        co_await rig.rar->set_action_pending(self, 1, slot);
        cpu.local_irq_disable();
        const Picos t0 = cpu.now();
        co_await intc->send_ipi(cpu, 1, 0xe0, hw::DeliveryMode::rar);
        send_time.push_back(cpu.now() - t0);
        co_await cpu.local_irq_enable();
    };
    // cpu0's RAR reaches cpu1 500 ns after its send; cpu2 sends 150 ns later, so its RAR
    // arrives while the microcode still works on cpu0's payload (100 ns of work alone).
    rig.start(0, sender(0, 0, 0_ns));
    rig.start(2, sender(2, 2, 150_ns));
    rig.eng.run();
    EXPECT_EQ(busy_at_delivery, (std::vector<bool>{false, true}));
    EXPECT_EQ(send_time, (std::vector<Picos>{150_ns, 150_ns}));
    EXPECT_EQ(rig.rar->stats(1).received, 2u);
    EXPECT_EQ(rig.rar->stats(1).rescans, 1u);
    EXPECT_EQ(rig.rar->peek_action(1, 0), hw::kRarSuccess);
    EXPECT_EQ(rig.rar->peek_action(1, 2), hw::kRarSuccess);
}

// The xAPIC RAR round trip (docs/mechanisms.md §3.5) on a whole toy4 Platform: the target's
// local APIC takes a RAR only while its microcode is not processing, and the sender's ICR
// stays busy until the reply is back, rar_reply (300 ns here) after that acceptance. toy4
// xAPIC: ICR read 50, ICR2 + ICR writes 50 each; fabric same_l3 500; no router.
namespace {

struct RoundTripRig {
    hw::MachineSpec spec;
    sim::Engine eng;
    hw::Platform plat;

    RoundTripRig()
        : spec(load_with({"intc.params.rar_round_trip=true", "intc.params.rar_reply=300 ns"})), plat(eng, spec) {}
    static hw::MachineSpec load_with(const std::vector<std::string>& overrides) {
        config::Document doc = config::Document::load(std::string(IPISIM_SOURCE_DIR) + "/machines/toy4.toml");
        for (const std::string& o : overrides) doc.apply_override(o);
        return hw::load_machine(doc, "toy4");
    }
    hw::Rar& rar() { return *plat.rar(); }
    void start(hw::CpuId c, sim::Proc body) {
        plat.cpu(c).set_running(&eng.spawn("cpu" + std::to_string(c), std::move(body)));
    }
    // Writes a payload into `slot` and PENDING into each target, then sends the RAR IPI to
    // them with IRQs off; records when the send returned.
    sim::Proc sender(hw::CpuId self, uint32_t slot, std::vector<hw::CpuId> targets, Picos delay, Picos* done) {
        hw::Cpu& cpu = plat.cpu(self);
        co_await cpu.compute(delay);
        co_await rar().write_payload(self, slot, pages(1, 0, 1));
        for (hw::CpuId t : targets) co_await rar().set_action_pending(self, t, slot);
        hw::CpuMask mask(plat.nr_cpus());
        for (hw::CpuId t : targets) mask.set(t);
        cpu.local_irq_disable();
        co_await plat.intc().send_ipi_mask(cpu, mask, 0xe0, hw::DeliveryMode::rar);
        *done = cpu.now();
        co_await cpu.local_irq_enable();
    }
};

}  // namespace

TEST(Rar, a_round_trip_rar_keeps_the_senders_icr_busy_until_the_targets_reply_is_back) {
    RoundTripRig rig;
    Picos done;
    rig.start(0, rig.sender(0, 0, {1, 3}, 0_ns, &done));
    rig.eng.run();
    // Payload (uncached) 100, PENDING into CPU 1's and CPU 3's lines 50 + 50 -> 200. To CPU 1:
    // 1 poll 50, ICR2 + ICR 100, leaves at 350, accepted at 850 (microcode idle), reply at
    // 1150. To CPU 3: polls from 350 until the reply is known at 850 and then to 1150 (16 in
    // all), writes -> 1250.
    EXPECT_EQ(done, 1250_ns);
    EXPECT_EQ(rig.plat.intc().stats().icr_polls, 1u + 16u);
    EXPECT_EQ(rig.plat.cpu(0).profile().time(hw::profile_label("apic_mem_wait_icr_idle"), hw::Activity::spin), 850_ns);
    EXPECT_EQ(rig.rar().peek_action(1, 0), hw::kRarSuccess);
    EXPECT_EQ(rig.rar().peek_action(3, 0), hw::kRarSuccess);
    EXPECT_EQ(rig.plat.intc().fabric().stats().door_waits, 0u);
}

TEST(Rar, a_round_trip_rar_to_a_target_whose_microcode_is_busy_waits_at_its_door_until_the_scan_ends) {
    RoundTripRig rig;
    Picos done0;
    Picos done2;
    rig.start(0, rig.sender(0, 0, {1}, 0_ns, &done0));
    rig.start(2, rig.sender(2, 2, {1, 3}, 200_ns, &done2));
    rig.eng.run();
    // CPU 0: payload 100, PENDING 50, poll 50, writes 100: leaves at 300, accepted by CPU 1 at
    // 800 (reply 1100). CPU 1's microcode from 800: word 0 (from CPU 2) 50, slot 0: payload 50
    // + 100 + SUCCESS 50, slot 2: payload 50 + 100 + 1, words 1-7: 7 -> idle at 1208.
    // CPU 2 (from 200): payload 100, PENDING into CPU 1's line (from its sibling CPU 0) 10 and
    // CPU 3's 50, poll 50, writes 100: its RAR leaves at 510 and reaches CPU 1 at 1010, busy:
    // it waits at the door until 1208 (198 ns), then a second scan (8 L1 hits) finds nothing
    // new. Its reply is back at 1508: the send to CPU 3 polls from 510 to 1510 (20 polls),
    // writes -> 1610.
    EXPECT_EQ(done0, 300_ns);
    EXPECT_EQ(done2, 1610_ns);
    EXPECT_EQ(rig.plat.intc().fabric().stats().door_waits, 1u);
    EXPECT_EQ(rig.plat.intc().fabric().stats().door_wait_time, 198_ns);
    EXPECT_EQ(rig.rar().stats(1).scans, 2u);
    EXPECT_EQ(rig.rar().stats(1).rescans, 0u);  // the door replaces the rescan flag
    EXPECT_EQ(rig.rar().stats(1).stolen, 408_ns + 8_ns);
    EXPECT_EQ(rig.rar().peek_action(1, 2), hw::kRarSuccess);
    EXPECT_EQ(rig.rar().peek_action(3, 2), hw::kRarSuccess);
}
