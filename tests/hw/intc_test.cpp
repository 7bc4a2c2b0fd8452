// The interrupt controllers' register models (hw/intc) on toy machines, without a kernel: the
// registry of kinds, what one register write delivers where and when, and the xAPIC
// delivery-status bit. The kernel's send loops over them are tested in tests/kernel/irqchip_test.
// Toy costs: toy2/toy8 fence 50, ICR write 100; toy4 ICR read 50, write 50, busy 200 + 50 per
// message in flight; toy4_arm dsb_st 200, dsb_ishst 50, SGI1R 100, isb 10. IRQ entry 200 + EOI
// 50 before a handler body starts.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/intc/gicv3.h"
#include "hw/intc/intc_type.h"
#include "hw/intc/x2apic.h"
#include "hw/intc/xapic_mmio.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using sim::Picos;

namespace {

constexpr uint32_t kVector = 0xfb;

// Every CPU modeled and busy; CPU 0 runs `body` against the controller; handler entries recorded.
struct Rig {
    hw::MachineSpec spec;
    sim::Engine eng;
    std::vector<std::unique_ptr<hw::Cpu>> cpus;
    std::unique_ptr<hw::InterruptController> intc;
    std::vector<std::vector<Picos>> entered;  // per CPU: handler body starts
    Picos done;                               // when CPU 0's body returned

    explicit Rig(hw::MachineSpec s) : spec(std::move(s)) {
        std::vector<hw::Cpu*> ptrs;
        for (uint32_t i = 0; i < spec.topology.nr_cpus(); ++i) {
            cpus.push_back(std::make_unique<hw::Cpu>(eng, i, spec));
            ptrs.push_back(cpus.back().get());
            cpus.back()->set_irq_handler(kVector, "test_ipi", [this](hw::Cpu& c, const sim::Interrupt&) -> sim::Task<> {
                entered[c.id()].push_back(c.now());
                co_return;
            });
        }
        entered.resize(cpus.size());
        intc = hw::make_interrupt_controller(spec, eng, ptrs);
    }
    ~Rig() { eng.shutdown(); }
    Rig(const Rig&) = delete;
    Rig& operator=(const Rig&) = delete;

    void run(std::function<sim::Task<>(hw::Cpu&)> body) {
        auto p = [](Rig& r, std::function<sim::Task<>(hw::Cpu&)> b) -> sim::Proc {
            hw::Cpu& cpu = *r.cpus[0];
            cpu.local_irq_disable();
            co_await b(cpu);
            r.done = cpu.now();
            co_await cpu.local_irq_enable();
        };
        cpus[0]->set_running(&eng.spawn("cpu0", p(*this, std::move(body))));
        auto busy = [](hw::Cpu& cpu) -> sim::Proc { co_await cpu.compute(100_us); };
        for (size_t c = 1; c < cpus.size(); ++c) cpus[c]->set_running(&eng.spawn("busy", busy(*cpus[c])));
        eng.run();
    }
};

}  // namespace

TEST(Intc, the_four_kinds_of_the_machine_files_are_registered_on_their_architectures) {
    for (const char* kind : {"x2apic_phys", "x2apic_cluster", "xapic_mmio"}) {
        ASSERT_NE(hw::find_intc_type(kind), nullptr) << kind;
        EXPECT_TRUE(hw::find_intc_type(kind)->exists_on(hw::Arch::x86)) << kind;
        EXPECT_FALSE(hw::find_intc_type(kind)->exists_on(hw::Arch::arm64)) << kind;
    }
    ASSERT_NE(hw::find_intc_type("gicv3"), nullptr);
    EXPECT_TRUE(hw::find_intc_type("gicv3")->exists_on(hw::Arch::arm64));
    EXPECT_EQ(hw::find_intc_type("x3apic"), nullptr);
    EXPECT_EQ(hw::intc_type_names(), "gicv3, x2apic_cluster, x2apic_phys, xapic_mmio");
}

TEST(Intc, a_cpu_list_that_does_not_match_the_machine_is_rejected) {
    const hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    hw::Cpu cpu0(eng, 0, spec);
    EXPECT_THROW(hw::make_interrupt_controller(spec, eng, {&cpu0}), std::invalid_argument);
}

TEST(Intc, an_unregistered_kind_is_rejected_naming_the_registered_ones) {
    hw::MachineSpec spec = test::load_test_machine("toy2");
    spec.intc.kind = "x3apic";
    sim::Engine eng;
    std::vector<std::unique_ptr<hw::Cpu>> cpus;
    std::vector<hw::Cpu*> ptrs;
    for (uint32_t i = 0; i < 2; ++i) ptrs.push_back(cpus.emplace_back(std::make_unique<hw::Cpu>(eng, i, spec)).get());
    try {
        (void)hw::make_interrupt_controller(spec, eng, ptrs);
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("registered: gicv3, x2apic_cluster"), std::string::npos) << e.what();
    }
}

TEST(Intc, an_x2apic_physical_icr_write_delivers_to_the_cpu_with_that_apic_id_when_it_retires) {
    Rig rig(test::load_test_machine("toy8"));
    auto& x2apic = dynamic_cast<hw::X2apic&>(*rig.intc);
    rig.run([&](hw::Cpu& cpu) {
        return x2apic.write_icr(cpu, x2apic.apic_id(5), hw::X2apic::DestMode::physical, kVector);
    });
    EXPECT_EQ(rig.done, 100_ns);                               // one write, no fence
    EXPECT_EQ(rig.entered[5], (std::vector<Picos>{1350_ns}));  // 100 + cross_package 1000 + entry/EOI 250
    for (hw::CpuId c : {1U, 2U, 3U, 4U, 6U, 7U}) EXPECT_TRUE(rig.entered[c].empty()) << c;
    EXPECT_EQ(rig.intc->stats().register_writes, 1u);
}

TEST(Intc, an_x2apic_logical_icr_write_delivers_to_every_cpu_of_its_cluster_bitmap) {
    Rig rig(test::load_test_machine("toy8"));
    auto& x2apic = dynamic_cast<hw::X2apic&>(*rig.intc);
    const uint32_t dest = hw::X2apic::logical_id(x2apic.apic_id(1)) | hw::X2apic::logical_id(x2apic.apic_id(6));
    EXPECT_EQ(dest, (0U << 16) | (1U << 1) | (1U << 6));
    rig.run([&](hw::Cpu& cpu) { return x2apic.write_icr(cpu, dest, hw::X2apic::DestMode::logical, kVector); });
    EXPECT_EQ(rig.entered[1], (std::vector<Picos>{850_ns}));   // 100 + same_l3 500 + 250
    EXPECT_EQ(rig.entered[6], (std::vector<Picos>{1350_ns}));  // 100 + cross_package 1000 + 250
    EXPECT_EQ(rig.intc->fabric().stats().delivered, 2u);
}

TEST(Intc, the_x2apic_fence_costs_the_machine_fence) {
    Rig rig(test::load_test_machine("toy2"));
    auto& x2apic = dynamic_cast<hw::X2apic&>(*rig.intc);
    rig.run([&](hw::Cpu& cpu) { return x2apic.wrmsr_fence(cpu); });
    EXPECT_EQ(rig.done, 50_ns);
    EXPECT_EQ(rig.intc->fabric().stats().messages, 0u);
}

TEST(Intc, an_xapic_icr_write_sends_to_the_icr2_destination_and_sets_the_delivery_status_bit) {
    Rig rig(test::load_test_machine("toy4"));
    auto& xapic = dynamic_cast<hw::XapicMmio&>(*rig.intc);
    Picos sent;
    rig.run([&](hw::Cpu& cpu) -> sim::Task<> {
        co_await xapic.write_icr2(cpu, xapic.apic_id(3));
        co_await xapic.write_icr(cpu, kVector);
        sent = cpu.now();
        // Busy for icr_busy 200 + 50 x 0 messages in flight before this one: 4 reads of 50.
        co_await xapic.read_icr_until_idle(cpu);
    });
    EXPECT_EQ(sent, 100_ns);
    EXPECT_EQ(rig.done, 300_ns);
    EXPECT_EQ(rig.intc->stats().icr_polls, 4u);
    EXPECT_EQ(rig.entered[3], (std::vector<Picos>{850_ns}));  // 100 + same_l3 500 + 250
}

TEST(Intc, an_idle_xapic_icr_reads_once) {
    Rig rig(test::load_test_machine("toy4"));
    auto& xapic = dynamic_cast<hw::XapicMmio&>(*rig.intc);
    rig.run([&](hw::Cpu& cpu) { return xapic.read_icr_until_idle(cpu); });
    EXPECT_EQ(rig.done, 50_ns);
    EXPECT_EQ(rig.intc->stats().icr_polls, 1u);
}

TEST(Intc, xapic_ids_above_254_do_not_fit_the_topology) {
    hw::TopologySpec big;
    big.cores_per_l3 = 128;
    big.threads_per_core = 2;
    EXPECT_EQ(hw::xapic_topology_problem(hw::Topology(big)),
              "xAPIC ids are 8 bits (0xFF is broadcast); this topology needs APIC id 255");
    big.cores_per_l3 = 127;
    EXPECT_EQ(hw::xapic_topology_problem(hw::Topology(big)), "");
}

TEST(Intc, a_gicv3_sgi1r_write_delivers_to_the_target_list_of_its_affinity_group) {
    Rig rig(test::load_test_machine("toy4_arm"));
    auto& gic = dynamic_cast<hw::Gicv3&>(*rig.intc);
    // toy4_arm is mpidr_flat: Aff3 = package, Aff0 = core; cpu2 and cpu3 form group 1 << 32.
    const uint64_t group = hw::Gicv3::sgi_cluster_id(gic.mpidr(2));
    EXPECT_EQ(group, uint64_t{1} << 32);
    rig.run([&](hw::Cpu& cpu) { return gic.write_sgi1r(cpu, group, 0b11, kVector); });
    EXPECT_EQ(rig.done, 100_ns);
    EXPECT_EQ(rig.entered[2], (std::vector<Picos>{1350_ns}));  // 100 + cross_package 1000 + 250
    EXPECT_EQ(rig.entered[3], (std::vector<Picos>{1350_ns}));
    EXPECT_TRUE(rig.entered[1].empty());
}

TEST(Intc, the_gicv3_barriers_cost_the_machine_barriers) {
    Rig rig(test::load_test_machine("toy4_arm"));
    auto& gic = dynamic_cast<hw::Gicv3&>(*rig.intc);
    rig.run([&](hw::Cpu& cpu) -> sim::Task<> {
        co_await gic.dsb_st(cpu);
        co_await gic.dsb_ishst(cpu);
        co_await gic.isb(cpu);
    });
    EXPECT_EQ(rig.done, 260_ns);  // 200 + 50 + 10
}

// The xAPIC delivery status with the package's interrupt router and the RAR round trip
// (docs/mechanisms.md §3.5), at register level on toy4 (ICR busy 200 flat here).

TEST(Intc, an_xapic_icr_stays_busy_for_its_messages_router_wait_on_top_of_icr_busy) {
    Rig rig(test::load_test_machine("toy4",
                                    {"intc.params.icr_busy_per_inflight=0 ns", "intc.fabric.router_service=150 ns"}));
    auto& xapic = dynamic_cast<hw::XapicMmio&>(*rig.intc);
    rig.intc->fabric().send(1, 2, kVector, hw::DeliveryMode::fixed);  // holds the router 0..150
    Picos sent;
    rig.run([&](hw::Cpu& cpu) -> sim::Task<> {
        co_await xapic.write_icr2(cpu, xapic.apic_id(3));
        co_await xapic.write_icr(cpu, kVector);
        sent = cpu.now();
        // Leaves at 100, waits 50 for the router: busy until 100 + 200 + 50 = 350, 5 reads.
        co_await xapic.read_icr_until_idle(cpu);
    });
    EXPECT_EQ(sent, 100_ns);
    EXPECT_EQ(rig.done, 350_ns);
    EXPECT_EQ(rig.intc->stats().icr_polls, 5u);
    EXPECT_EQ(rig.entered[2], (std::vector<Picos>{750_ns}));  // 0 + 500 + 250
    EXPECT_EQ(rig.entered[3], (std::vector<Picos>{900_ns}));  // 150 + 500 + 250
}

TEST(Intc, a_round_trip_rar_icr_reads_busy_until_rar_reply_after_the_target_accepted_it) {
    Rig rig(test::load_test_machine("toy4", {"intc.params.rar_round_trip=true", "intc.params.rar_reply=300 ns"}));
    auto& xapic = dynamic_cast<hw::XapicMmio&>(*rig.intc);
    EXPECT_TRUE(xapic.rar_round_trip());
    Picos accepted;
    rig.intc->fabric().set_rar_hook([&](hw::CpuId, hw::CpuId) { accepted = rig.eng.now(); });
    rig.run([&](hw::Cpu& cpu) -> sim::Task<> {
        co_await xapic.write_icr2(cpu, xapic.apic_id(3));
        co_await xapic.write_icr(cpu, 0xe0, hw::DeliveryMode::rar);
        // Leaves at 100, accepted at 600, reply at 900: the reads from 100 end at 900 (16).
        co_await xapic.read_icr_until_idle(cpu);
    });
    EXPECT_EQ(accepted, 600_ns);
    EXPECT_EQ(rig.done, 900_ns);
    EXPECT_EQ(rig.intc->stats().icr_polls, 16u);
}

TEST(Intc, without_the_round_trip_a_rar_icr_is_busy_like_a_fixed_one) {
    Rig rig(test::load_test_machine("toy4"));
    auto& xapic = dynamic_cast<hw::XapicMmio&>(*rig.intc);
    EXPECT_FALSE(xapic.rar_round_trip());
    rig.intc->fabric().set_rar_hook([](hw::CpuId, hw::CpuId) {});
    rig.run([&](hw::Cpu& cpu) -> sim::Task<> {
        co_await xapic.write_icr2(cpu, xapic.apic_id(3));
        co_await xapic.write_icr(cpu, 0xe0, hw::DeliveryMode::rar);
        co_await xapic.read_icr_until_idle(cpu);  // icr_busy 200: 4 reads
    });
    EXPECT_EQ(rig.done, 300_ns);
    EXPECT_EQ(rig.intc->stats().icr_polls, 4u);
}
