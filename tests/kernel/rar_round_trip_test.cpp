// RAR sends through the kernel's xAPIC driver (default_send_IPI_mask_sequence_phys) to the
// target's microcode on a whole toy4 Platform: without the round trip a RAR to a busy target is
// latched as a rescan; with it (docs/mechanisms.md §3.5) the target's local APIC takes a RAR only
// while its microcode is not scanning (it does while the core wakes from a C-state to run
// it), and the sender's ICR stays busy until the reply is
// back, rar_reply (300 ns here) after that acceptance. toy4: CPUs 0,1 = cores 0,1 and 2,3 their
// SMT siblings; xAPIC ICR read 50, ICR2 + ICR writes 50 each; fabric same_l3 500, no router;
// lines: l1_hit 1, smt 10, same_l3 50, memory 100; rar_per_payload 100, 8 action words.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/cpumask.h"
#include "hw/intc/interrupt_controller.h"
#include "hw/machine.h"
#include "hw/platform.h"
#include "hw/tlb/rar.h"
#include "kernel/irqchip/irqchip.h"
#include "sim/engine.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using sim::Picos;

namespace {

constexpr uint32_t kRarVector = 0xe0;

hw::MachineSpec toy4(const std::vector<std::string>& overrides) {
    return test::load_test_machine("toy4", overrides);
}

hw::RarPayload one_page() {
    hw::RarPayload p;
    p.subtype = hw::RarSubtype::addr;
    p.pcid = 1;
    p.num_pages = 1;
    return p;
}

struct RarRig {
    hw::MachineSpec spec;
    sim::Engine eng;
    hw::Platform plat;
    std::unique_ptr<kernel::irqchip::Irqchip> chip;

    explicit RarRig(const std::vector<std::string>& overrides)
        : spec(toy4(overrides)), plat(eng, spec), chip(kernel::irqchip::make_irqchip(plat.intc())) {}
    ~RarRig() { eng.shutdown(); }
    RarRig(const RarRig&) = delete;
    RarRig& operator=(const RarRig&) = delete;

    hw::Rar& rar() { return *plat.rar(); }
    void start(hw::CpuId c, sim::Proc body) {
        plat.cpu(c).set_running(&eng.spawn("cpu" + std::to_string(c), std::move(body)));
    }
    // After `delay`, writes a payload into `slot` and PENDING into each target, then sends the
    // RAR IPI to them with IRQs off; records when the send started and returned.
    sim::Proc sender(hw::CpuId self, uint32_t slot, std::vector<hw::CpuId> targets, Picos delay, Picos* started,
                     Picos* done) {
        hw::Cpu& cpu = plat.cpu(self);
        co_await cpu.compute(delay);
        co_await rar().write_payload(self, slot, one_page());
        for (hw::CpuId t : targets) co_await rar().set_action_pending(self, t, slot);
        hw::CpuMask mask(plat.nr_cpus());
        for (hw::CpuId t : targets) mask.set(t);
        cpu.local_irq_disable();
        *started = cpu.now();
        co_await chip->send_IPI_mask(cpu, mask, kRarVector, hw::DeliveryMode::rar);
        *done = cpu.now();
        co_await cpu.local_irq_enable();
    }
};

const std::vector<std::string> kRoundTrip = {"intc.params.rar_round_trip=true", "intc.params.rar_reply=300 ns"};

}  // namespace

TEST(RarRoundTrip, without_the_round_trip_a_rar_to_a_busy_target_is_latched_and_costs_the_sender_no_more) {
    // toy4 has intc.params.rar_round_trip = false: the target's local APIC takes every RAR
    // like a fixed interrupt, and one that finds the microcode busy causes a rescan. So the
    // second sender's xAPIC send (1 poll + ICR2 + ICR) takes exactly what a send to an idle
    // target takes, 150 ns.
    RarRig rig({});
    std::vector<bool> busy_at_delivery;
    rig.plat.intc().fabric().set_rar_hook([&](hw::CpuId target, hw::CpuId sender) {
        busy_at_delivery.push_back(rig.rar().processing(target));
        rig.rar().deliver(target, sender);
    });
    // cpu0's RAR reaches cpu1 500 ns after its send; cpu2 sends 150 ns later, so its RAR
    // arrives while the microcode still works on cpu0's payload (100 ns of work alone).
    Picos started[2];
    Picos done[2];
    rig.start(0, rig.sender(0, 0, {1}, 0_ns, &started[0], &done[0]));
    rig.start(2, rig.sender(2, 2, {1}, 150_ns, &started[1], &done[1]));
    rig.eng.run();
    EXPECT_EQ(busy_at_delivery, (std::vector<bool>{false, true}));
    EXPECT_EQ(done[0] - started[0], 150_ns);
    EXPECT_EQ(done[1] - started[1], 150_ns);
    EXPECT_EQ(rig.rar().stats(1).received, 2u);
    EXPECT_EQ(rig.rar().stats(1).rescans, 1u);
    EXPECT_EQ(rig.rar().peek_action(1, 0), hw::kRarSuccess);
    EXPECT_EQ(rig.rar().peek_action(1, 2), hw::kRarSuccess);
}

TEST(RarRoundTrip, a_round_trip_rar_keeps_the_senders_icr_busy_until_the_targets_reply_is_back) {
    RarRig rig(kRoundTrip);
    Picos started;
    Picos done;
    rig.start(0, rig.sender(0, 0, {1, 3}, 0_ns, &started, &done));
    rig.eng.run();
    // Payload (uncached) 100, PENDING into CPU 1's and CPU 3's lines 50 + 50 -> 200. To CPU 1:
    // 1 poll 50, ICR2 + ICR 100, leaves at 350, accepted at 850 (microcode idle), reply at
    // 1150. To CPU 3: polls from 350 until the reply is known at 850 and then to 1150 (16 in
    // all), writes -> 1250.
    EXPECT_EQ(started, 200_ns);
    EXPECT_EQ(done, 1250_ns);
    EXPECT_EQ(rig.plat.intc().stats().icr_polls, 1u + 16u);
    EXPECT_EQ(rig.plat.cpu(0).profile().time(hw::profile_label("apic_mem_wait_icr_idle"), hw::Activity::spin), 850_ns);
    EXPECT_EQ(rig.rar().peek_action(1, 0), hw::kRarSuccess);
    EXPECT_EQ(rig.rar().peek_action(3, 0), hw::kRarSuccess);
    EXPECT_EQ(rig.plat.intc().fabric().stats().door_waits, 0u);
}

TEST(RarRoundTrip, a_round_trip_rar_to_a_target_whose_microcode_is_busy_waits_at_its_door_until_the_scan_ends) {
    RarRig rig(kRoundTrip);
    Picos started[2];
    Picos done[2];
    rig.start(0, rig.sender(0, 0, {1}, 0_ns, &started[0], &done[0]));
    rig.start(2, rig.sender(2, 2, {1, 3}, 200_ns, &started[1], &done[1]));
    rig.eng.run();
    // CPU 0: payload 100, PENDING 50, poll 50, writes 100: leaves at 300, accepted by CPU 1 at
    // 800 (reply 1100). CPU 1's microcode from 800: word 0 (from CPU 2) 50, slot 0: payload 50
    // + 100 + SUCCESS 50, slot 2: payload 50 + 100 + 1, words 1-7: 7 -> idle at 1208.
    // CPU 2 (from 200): payload 100, PENDING into CPU 1's line (from its sibling CPU 0) 10 and
    // CPU 3's 50, poll 50, writes 100: its RAR leaves at 510 and reaches CPU 1 at 1010, busy:
    // it waits at the door until 1208 (198 ns), then a second scan (8 L1 hits) finds nothing
    // new. Its reply is back at 1508: the send to CPU 3 polls from 510 to 1510 (20 polls),
    // writes -> 1610.
    EXPECT_EQ(done[0], 300_ns);
    EXPECT_EQ(done[1], 1610_ns);
    EXPECT_EQ(rig.plat.intc().fabric().stats().door_waits, 1u);
    EXPECT_EQ(rig.plat.intc().fabric().stats().door_wait_time, 198_ns);
    EXPECT_EQ(rig.rar().stats(1).scans, 2u);
    EXPECT_EQ(rig.rar().stats(1).rescans, 0u);  // the door replaces the rescan flag
    EXPECT_EQ(rig.rar().stats(1).stolen, 408_ns + 8_ns);
    EXPECT_EQ(rig.rar().peek_action(1, 2), hw::kRarSuccess);
    EXPECT_EQ(rig.rar().peek_action(3, 2), hw::kRarSuccess);
}

TEST(RarRoundTrip, a_round_trip_rar_that_arrives_while_the_target_core_wakes_is_taken_at_once_and_served_by_the_scan) {
    // CPU 1 idles in toy4's C1 (a 1 us wake). CPU 0's RAR is accepted at 800 (reply 1100) and
    // starts the wake; the microcode scans from 1800. CPU 2's RAR (leaves at 510) reaches CPU 1
    // at 1010, in the wake: its local APIC takes it at once, no door wait, and latches it; the
    // first scan, which starts after it, serves both payloads (no rescan left). Its reply is back at 1310: the send to
    // CPU 3 polls from 510 to 1310 (16 polls), writes
    // -> 1410. Had the door stayed closed through the wake, CPU 2 would have waited until the
    // first scan ended, past 2100.
    RarRig rig(kRoundTrip);
    hw::Cpu& target = rig.plat.cpu(1);
    target.set_idle_state(1);
    auto idle_forever = [&]() -> sim::Proc {
        for (;;) co_await target.idle();
    };
    rig.start(1, idle_forever());
    Picos started[2];
    Picos done[2];
    rig.start(0, rig.sender(0, 0, {1}, 0_ns, &started[0], &done[0]));
    rig.start(2, rig.sender(2, 2, {1, 3}, 200_ns, &started[1], &done[1]));
    rig.eng.run_until(20_us);
    EXPECT_EQ(done[0], 300_ns);
    EXPECT_EQ(done[1], 1410_ns);
    EXPECT_EQ(rig.plat.intc().fabric().stats().door_waits, 0u);
    EXPECT_EQ(rig.rar().stats(1).received, 2u);
    EXPECT_EQ(rig.rar().stats(1).scans, 1u);
    EXPECT_EQ(rig.rar().stats(1).rescans, 0u);
    EXPECT_EQ(rig.rar().stats(1).payloads, 2u);
    EXPECT_EQ(rig.rar().peek_action(1, 0), hw::kRarSuccess);
    EXPECT_EQ(rig.rar().peek_action(1, 2), hw::kRarSuccess);
    EXPECT_EQ(rig.rar().peek_action(3, 2), hw::kRarSuccess);
}
