// The kernel's IPI drivers (kernel/irqchip) over the hardware registers, on toy machines:
// sender-side cost per kind (x2APIC physical and cluster, xAPIC MMIO, GICv3), delivery times
// through the fabric, and RAR-mode delivery.
// Toy costs: toy2/toy8 fence 50, ICR write 100; toy4 ICR read 50, write 50, busy 200 + 50 per
// message in flight; toy4_arm dsb_st 200, dsb_ishst 50, SGI1R 100, isb 10. IRQ entry 200 + EOI
// 50 before a handler body starts.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/cpumask.h"
#include "hw/intc/intc_type.h"
#include "hw/intc/interrupt_controller.h"
#include "hw/machine.h"
#include "kernel/irqchip/irqchip.h"
#include "sim/engine.h"
#include "sim/registry.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using kernel::irqchip::GicIpiBarrier;
using sim::Picos;

namespace {

constexpr uint32_t kVector = 0xfb;

// A toy machine with every CPU modeled, its interrupt controller and its kernel driver, and a
// recording IPI handler.
struct IntcRig {
    struct Entry {
        sim::Picos at;  // handler body start
        uint64_t sender = 0;
    };

    hw::MachineSpec spec;
    sim::Engine eng;
    std::vector<std::unique_ptr<hw::Cpu>> cpus;
    std::unique_ptr<hw::InterruptController> intc;
    std::unique_ptr<kernel::irqchip::Irqchip> chip;
    std::vector<std::vector<Entry>> entered;  // per CPU
    std::vector<sim::Picos> send_done;        // per CPU, when its send returned

    explicit IntcRig(hw::MachineSpec s) : spec(std::move(s)) {
        const uint32_t n = spec.topology.nr_cpus();
        std::vector<hw::Cpu*> ptrs;
        for (uint32_t i = 0; i < n; ++i) {
            cpus.push_back(std::make_unique<hw::Cpu>(eng, i, spec));
            ptrs.push_back(cpus.back().get());
        }
        intc = hw::make_interrupt_controller(spec, eng, ptrs);
        chip = kernel::irqchip::make_irqchip(*intc);
        entered.resize(n);
        send_done.resize(n, sim::Picos::max());
        for (uint32_t i = 0; i < n; ++i) {
            cpus[i]->set_irq_handler(kVector, "test_ipi", [this](hw::Cpu& c, const sim::Interrupt& irq) -> sim::Task<> {
                entered[c.id()].push_back(Entry{c.now(), irq.data});
                co_return;
            });
        }
    }
    ~IntcRig() { eng.shutdown(); }
    IntcRig(const IntcRig&) = delete;
    IntcRig& operator=(const IntcRig&) = delete;

    [[nodiscard]] hw::CpuMask mask(std::initializer_list<hw::CpuId> c) const {
        return hw::CpuMask::of(spec.topology.nr_cpus(), c);
    }

    // CPU c computes for a long time (so it takes IPIs with zero C-state exit latency).
    void busy(hw::CpuId c) {
        auto body = [](hw::Cpu& cpu) -> sim::Proc { co_await cpu.compute(100_us); };
        cpus[c]->set_running(&eng.spawn("cpu" + std::to_string(c), body(*cpus[c])));
    }

    // CPU c sends `vector` to `targets` at time 0 with IRQs disabled, then computes.
    void sender(hw::CpuId c, hw::CpuMask targets, hw::DeliveryMode mode = hw::DeliveryMode::fixed) {
        auto body = [](IntcRig& r, hw::Cpu& cpu, hw::CpuMask t, hw::DeliveryMode m) -> sim::Proc {
            cpu.local_irq_disable();
            co_await r.chip->send_IPI_mask(cpu, t, kVector, m);
            r.send_done[cpu.id()] = cpu.now();
            co_await cpu.local_irq_enable();
            co_await cpu.compute(100_us);
        };
        cpus[c]->set_running(&eng.spawn("cpu" + std::to_string(c), body(*this, *cpus[c], std::move(targets), mode)));
    }

    // Every CPU without a process yet becomes busy.
    void others_busy() {
        for (auto& c : cpus) {
            if (c->running() == nullptr) busy(c->id());
        }
    }

    [[nodiscard]] std::vector<sim::Picos> entry_times(hw::CpuId c) const {
        std::vector<sim::Picos> out;
        for (const Entry& e : entered[c]) out.push_back(e.at);
        return out;
    }
};

std::vector<Picos> times(std::initializer_list<Picos> t) {
    return t;
}

}  // namespace

TEST(Irqchip, every_registered_interrupt_controller_has_a_kernel_driver) {
    const auto& drivers = sim::Registry<kernel::irqchip::Irqchip>::instance();
    for (const hw::IntcType* t : hw::intc_types()) EXPECT_TRUE(drivers.contains(t->name)) << t->name;
    for (const char* machine : {"toy2", "toy4", "toy8", "toy4_arm"}) {
        IntcRig rig(test::load_test_machine(machine));
        EXPECT_EQ(&rig.chip->hardware(), rig.intc.get()) << machine;
    }
}

TEST(Irqchip, a_mask_of_another_machine_size_is_rejected) {
    IntcRig rig(test::load_test_machine("toy2"));
    EXPECT_THROW((void)rig.chip->send_IPI_mask(*rig.cpus[0], hw::CpuMask(8), kVector), std::invalid_argument);
    EXPECT_THROW((void)rig.chip->send_IPI(*rig.cpus[0], 2, kVector), std::out_of_range);
}

TEST(Irqchip, an_x2apic_phys_send_to_three_targets_costs_one_fence_and_three_icr_writes) {
    IntcRig rig(test::load_test_machine("toy8", {"intc.kind=x2apic_phys"}));
    rig.sender(0, rig.mask({1, 2, 5}));
    rig.others_busy();
    rig.eng.run();
    // fence 0-50; writes retire at 150, 250, 350; delivery same_l3 500, same_die 750,
    // cross_package 1000; then IRQ entry + EOI 250.
    EXPECT_EQ(rig.send_done[0], 350_ns);
    EXPECT_EQ(rig.entry_times(1), times({900_ns}));
    EXPECT_EQ(rig.entry_times(2), times({1250_ns}));
    EXPECT_EQ(rig.entry_times(5), times({1600_ns}));
    EXPECT_EQ(rig.entered[5][0].sender, 0u);
    EXPECT_EQ(rig.intc->stats().register_writes, 3u);
    EXPECT_EQ(rig.cpus[0]->profile().time_in_label(hw::profile_label("__x2apic_send_IPI_mask")), 350_ns);
    EXPECT_EQ(rig.chip->stats().sends, 1u);
}

TEST(Irqchip, an_ipi_is_not_delivered_at_t_minus_1_and_is_at_t) {
    IntcRig rig(test::load_test_machine("toy2"));
    auto body = [](IntcRig& r) -> sim::Proc {
        hw::Cpu& cpu = *r.cpus[0];
        cpu.local_irq_disable();
        co_await r.chip->send_IPI(cpu, 1, kVector);  // x2apic_send_IPI: fence 50 + write 100
        r.send_done[0] = cpu.now();
        co_await cpu.local_irq_enable();
    };
    rig.cpus[0]->set_running(&rig.eng.spawn("cpu0", body(rig)));
    rig.busy(1);
    rig.eng.run_until(650_ns - Picos(1));
    EXPECT_EQ(rig.send_done[0], 150_ns);
    EXPECT_EQ(rig.intc->fabric().stats().delivered, 0u);
    EXPECT_EQ(rig.cpus[1]->irqs_taken(), 0u);
    rig.eng.run_until(650_ns);  // 150 + same_l3 500
    EXPECT_EQ(rig.intc->fabric().stats().delivered, 1u);
    EXPECT_EQ(rig.cpus[1]->irqs_taken(), 1u);
    rig.eng.run();
    EXPECT_EQ(rig.entry_times(1), times({900_ns}));
}

TEST(Irqchip, x2apic_cluster_mode_writes_the_icr_once_for_targets_in_one_cluster) {
    // toy8's APIC ids are 0..7: both packages are in cluster 0.
    IntcRig rig(test::load_test_machine("toy8"));
    rig.sender(0, rig.mask({1, 2, 5}));
    rig.others_busy();
    rig.eng.run();
    EXPECT_EQ(rig.send_done[0], 150_ns);  // fence 50 + one write 100
    EXPECT_EQ(rig.entry_times(1), times({900_ns}));
    EXPECT_EQ(rig.entry_times(2), times({1150_ns}));
    EXPECT_EQ(rig.entry_times(5), times({1400_ns}));
    EXPECT_EQ(rig.intc->stats().register_writes, 1u);
}

TEST(Irqchip, x2apic_cluster_mode_writes_the_icr_once_per_16_cpu_cluster) {
    // 8 cores per L3: APIC id = package << 4 | l3 << 3 | core, so each package is one cluster.
    IntcRig rig(test::load_test_machine("toy8", {"topology.cores_per_l3=8"}));
    ASSERT_EQ(rig.spec.topology.hw_id(17) >> 4, 1u);
    rig.sender(0, rig.mask({1, 2, 17, 18}));
    rig.others_busy();
    rig.eng.run();
    EXPECT_EQ(rig.send_done[0], 250_ns);               // fence 50 + 2 writes
    EXPECT_EQ(rig.entry_times(2), times({900_ns}));    // cluster 0 leaves at 150
    EXPECT_EQ(rig.entry_times(17), times({1500_ns}));  // cluster 1 leaves at 250, 1 us away
    EXPECT_EQ(rig.intc->stats().register_writes, 2u);
}

TEST(Irqchip, xapic_waits_for_its_own_icr_idle_between_targets) {
    IntcRig rig(test::load_test_machine("toy4", {"topology.cores_per_l3=4"}));
    rig.sender(0, rig.mask({2, 3, 4}));
    rig.others_busy();
    rig.eng.run();
    // target 2: 1 poll (idle) 50, ICR2+ICR 100 -> leaves at 150, busy till 350 (nothing in flight)
    // target 3: 4 polls till 350, writes -> 450, busy till 450 + 200 + 50 x 1 in flight = 700
    // target 4: 5 polls till 700, writes -> 800
    EXPECT_EQ(rig.send_done[0], 800_ns);
    EXPECT_EQ(rig.intc->stats().icr_polls, 10u);
    EXPECT_EQ(rig.cpus[0]->profile().time(hw::profile_label("apic_mem_wait_icr_idle"), hw::Activity::spin), 500_ns);
    EXPECT_EQ(rig.entry_times(2), times({900_ns}));
    EXPECT_EQ(rig.entry_times(3), times({1200_ns}));
    EXPECT_EQ(rig.entry_times(4), times({1550_ns}));
}

TEST(Irqchip, xapic_icr_busy_grows_with_messages_in_flight_so_simultaneous_senders_slow_each_other) {
    IntcRig rig(test::load_test_machine("toy4", {"topology.cores_per_l3=4"}));
    rig.sender(0, rig.mask({2, 3, 4}));
    rig.sender(1, rig.mask({5, 6, 7}));
    rig.others_busy();
    rig.eng.run();
    // Alone each takes 800 ns (previous test). Together, at 150 the second message sees one in
    // flight; cpu0's later sends see 2, cpu1's 3: 850 and 950 ns.
    EXPECT_EQ(rig.send_done[0], 850_ns);
    EXPECT_EQ(rig.send_done[1], 950_ns);
}

TEST(Irqchip, a_gicv3_send_costs_the_barrier_one_sgi1r_write_per_affinity_group_and_an_isb) {
    IntcRig rig(test::load_test_machine("toy4_arm"));
    rig.sender(0, rig.mask({1, 2, 3}));  // groups: {1} (package 0), {2, 3} (package 1)
    rig.others_busy();
    rig.eng.run();
    EXPECT_EQ(rig.send_done[0], 260_ns);  // dsb(ishst) 50 + 2 x 100 + isb 10
    EXPECT_EQ(rig.intc->stats().register_writes, 2u);
    EXPECT_EQ(rig.entry_times(1), times({900_ns}));   // leaves at 150, same_l3 500
    EXPECT_EQ(rig.entry_times(2), times({1500_ns}));  // leaves at 250, cross_package 1 us
    EXPECT_EQ(rig.entry_times(3), times({1500_ns}));
}

TEST(Irqchip, the_gicv3_driver_barrier_wmb_and_dsb_ishst_differ_by_exactly_their_cost_difference) {
    Picos took[2];
    for (const GicIpiBarrier b : {GicIpiBarrier::wmb, GicIpiBarrier::dsb_ishst}) {
        IntcRig rig(test::load_test_machine("toy4_arm"));
        rig.chip->configure({.gic_ipi_barrier = b});
        rig.sender(0, rig.mask({1, 2, 3}));
        rig.others_busy();
        rig.eng.run();
        took[static_cast<int>(b)] = rig.send_done[0];
    }
    EXPECT_EQ(took[0], 410_ns);  // wmb() = dsb(st) 200 + 2 x 100 + isb 10
    EXPECT_EQ(took[0] - took[1], 200_ns - 50_ns);
}

TEST(Irqchip, the_default_gicv3_barrier_is_dsb_ishst_of_current_kernels) {
    EXPECT_EQ(kernel::irqchip::IrqchipConfig{}.gic_ipi_barrier, GicIpiBarrier::dsb_ishst);
}

TEST(Irqchip, an_x86_driver_ignores_the_gic_barrier_setting) {
    Picos took[2];
    for (const GicIpiBarrier b : {GicIpiBarrier::wmb, GicIpiBarrier::dsb_ishst}) {
        IntcRig rig(test::load_test_machine("toy2"));
        rig.chip->configure({.gic_ipi_barrier = b});
        rig.sender(0, rig.mask({1}));
        rig.others_busy();
        rig.eng.run();
        took[static_cast<int>(b)] = rig.send_done[0];
    }
    EXPECT_EQ(took[0], 150_ns);  // fence 50 + one ICR write 100
    EXPECT_EQ(took[1], took[0]);
}

TEST(Irqchip, rar_mode_delivery_calls_the_rar_hook_and_not_the_irq_handler) {
    IntcRig rig(test::load_test_machine("toy2"));
    std::vector<std::pair<hw::CpuId, hw::CpuId>> rar;
    Picos at;
    rig.intc->fabric().set_rar_hook([&](hw::CpuId target, hw::CpuId sender) {
        rar.emplace_back(target, sender);
        at = rig.eng.now();
    });
    rig.sender(0, rig.mask({1}), hw::DeliveryMode::rar);
    rig.busy(1);
    rig.eng.run();
    EXPECT_EQ(rar, (std::vector<std::pair<hw::CpuId, hw::CpuId>>{{1, 0}}));
    EXPECT_EQ(at, 650_ns);
    EXPECT_EQ(rig.cpus[1]->irqs_taken(), 0u);
    EXPECT_TRUE(rig.entered[1].empty());
    EXPECT_EQ(rig.intc->fabric().stats().rar_messages, 1u);
}

TEST(Irqchip, contended_sends_are_bit_identical_across_runs) {
    uint64_t fp[2];
    for (uint64_t& f : fp) {
        IntcRig rig(test::load_test_machine("toy4", {"topology.cores_per_l3=4", "intc.fabric.capacity=2"}));
        rig.sender(0, rig.mask({2, 3, 4, 5}));
        rig.sender(1, rig.mask({4, 5, 6, 7}));
        rig.others_busy();
        rig.eng.run();
        f = rig.eng.fingerprint();
    }
    EXPECT_EQ(fp[0], fp[1]);
}

TEST(Irqchip, x2apic_cluster_mode_covers_smt_siblings_numbered_apart_with_one_write) {
    // toy8 with SMT: APIC id = package << 3 | l3 << 2 | core << 1 | thread, all in cluster 0;
    // smt_last numbering puts cpu1's sibling at cpu9.
    IntcRig rig(test::load_test_machine("toy8", {"topology.threads_per_core=2", "coherence.smt=\"10 ns\"",
                                                 "intc.fabric.smt=\"500 ns\"", "cpu.smt_throughput_percent=50"}));
    ASSERT_EQ(rig.spec.topology.distance(1, 9), hw::DistanceClass::smt);
    rig.sender(0, rig.mask({1, 2, 9}));
    rig.others_busy();
    rig.eng.run();
    EXPECT_EQ(rig.send_done[0], 150_ns);  // fence 50 + one write 100
    EXPECT_EQ(rig.intc->stats().register_writes, 1u);
    EXPECT_EQ(rig.entry_times(1), times({900_ns}));   // same_l3 500
    EXPECT_EQ(rig.entry_times(9), times({900_ns}));   // same_l3 500 (cpu9 is core 1)
    EXPECT_EQ(rig.entry_times(2), times({1150_ns}));  // same_die 750
}

// xAPIC with the package's interrupt router (docs/mechanisms.md §3.5): the ICR stays busy for
// icr_busy + the message's wait for the router. toy4 x 4 cores (8 CPUs), ICR busy 200 flat.
namespace {

IntcRig xapic_with_router(const std::string& router_service) {
    return IntcRig(test::load_test_machine("toy4", {"topology.cores_per_l3=4", "intc.params.icr_busy_per_inflight=0 ns",
                                                    "intc.fabric.router_service=" + router_service}));
}

}  // namespace

TEST(Irqchip, the_second_senders_icr_stays_busy_until_the_router_took_its_message) {
    IntcRig rig = xapic_with_router("100 ns");
    rig.sender(0, rig.mask({2, 3}));
    rig.sender(1, rig.mask({4, 5}));
    rig.others_busy();
    rig.eng.run();
    // Both: poll 50, ICR2 + ICR 100, the messages leave at 150. cpu0's holds the router
    // 150..250 (ICR idle at 150 + 200 = 350); cpu1's waits 100 (idle at 450).
    // cpu0: 4 polls to 350, writes -> 450 (router free since 350). cpu1: 6 polls to 450, -> 550.
    EXPECT_EQ(rig.send_done[0], 450_ns);
    EXPECT_EQ(rig.send_done[1], 550_ns);
    EXPECT_EQ(rig.intc->fabric().router().stats().waits, 1u);
    // Delivered 500 after leaving the router, then IRQ entry + EOI 250.
    EXPECT_EQ(rig.entry_times(2), times({900_ns}));
    EXPECT_EQ(rig.entry_times(4), times({1000_ns}));
    EXPECT_EQ(rig.entry_times(3), times({1200_ns}));
    EXPECT_EQ(rig.entry_times(5), times({1300_ns}));
}

TEST(Irqchip, an_icr_busy_one_ps_longer_costs_the_waiting_sender_one_more_poll) {
    // As above, but the router takes 100 ns + 1 ps: cpu1's ICR is idle at 450 ns + 1 ps, so
    // its poll ending at 450 still reads busy and a 7th poll ends at 500.
    IntcRig rig = xapic_with_router("100001 ps");
    rig.sender(0, rig.mask({2, 3}));
    rig.sender(1, rig.mask({4, 5}));
    rig.others_busy();
    rig.eng.run();
    EXPECT_EQ(rig.send_done[1], 600_ns);
    EXPECT_EQ(rig.intc->stats().icr_polls, 1u + 4u + 1u + 7u);
}

TEST(Irqchip, x2apic_senders_do_not_wait_for_the_router_but_their_messages_do) {
    IntcRig rig(test::load_test_machine("toy8", {"intc.kind=x2apic_phys", "intc.fabric.router_service=100 ns"}));
    rig.sender(0, rig.mask({1}));
    rig.sender(2, rig.mask({3}));
    rig.others_busy();
    rig.eng.run();
    // fence 50 + write 100: both leave at 150; cpu2's waits for cpu0's at the router.
    EXPECT_EQ(rig.send_done[0], 150_ns);
    EXPECT_EQ(rig.send_done[2], 150_ns);
    EXPECT_EQ(rig.entry_times(1), times({900_ns}));   // 150 + 500 + 250
    EXPECT_EQ(rig.entry_times(3), times({1000_ns}));  // + the 100 ns wait
}

TEST(Irqchip, an_x2apic_cluster_write_to_three_cpus_takes_the_router_once) {
    IntcRig rig(test::load_test_machine("toy8", {"intc.fabric.router_service=100 ns"}));
    rig.sender(0, rig.mask({1, 2, 3}));
    rig.others_busy();
    rig.eng.run();
    EXPECT_EQ(rig.intc->stats().register_writes, 1u);
    EXPECT_EQ(rig.intc->fabric().router().stats().busy, 100_ns);
    EXPECT_EQ(rig.intc->fabric().stats().delivered, 3u);
}

// native_send_call_func_ipi (docs/mechanisms.md §4.6): a mask holding every other CPU is one
// destination-shorthand ICR write; the hardware delivers a copy to every CPU but the sender.
namespace {

// CPU 0 sends send_call_func_ipi(every other CPU) at 0, then one send_IPI to CPU 1; send_done
// is the end of the first, `second_done` of the second.
Picos shorthand_then_unicast(IntcRig& rig) {
    Picos second_done;
    auto body = [](IntcRig& r, Picos& second) -> sim::Proc {
        hw::Cpu& cpu = *r.cpus[0];
        const hw::CpuMask online = hw::CpuMask::all(r.spec.topology.nr_cpus());
        hw::CpuMask others = online;
        others.clear(0);
        cpu.local_irq_disable();
        co_await r.chip->send_call_func_ipi(cpu, others, online, kVector);
        r.send_done[0] = cpu.now();
        co_await r.chip->send_IPI(cpu, 1, kVector);
        second = cpu.now();
        co_await cpu.local_irq_enable();
    };
    rig.cpus[0]->set_running(&rig.eng.spawn("cpu0", body(rig, second_done)));
    rig.others_busy();
    rig.eng.run();
    return second_done;
}

}  // namespace

TEST(Irqchip, an_xapic_all_but_self_shorthand_is_one_icr_write_and_busies_the_icr_like_one_send) {
    IntcRig rig(test::load_test_machine("toy4", {"topology.cores_per_l3=4"}));
    const Picos second = shorthand_then_unicast(rig);
    // One poll (idle) 50 + one ICR write 50, no ICR2: leaves at 100; busy till 100 + 200.
    EXPECT_EQ(rig.send_done[0], 100_ns);
    // The unicast: 4 polls till 300, ICR2 + ICR -> 400.
    EXPECT_EQ(second, 400_ns);
    EXPECT_EQ(rig.intc->stats().register_writes, 2u);
    EXPECT_EQ(rig.intc->stats().icr_polls, 5u);
    EXPECT_EQ(rig.chip->stats().shorthand_sends, 1u);
    EXPECT_TRUE(rig.entered[0].empty());
    for (hw::CpuId c = 2; c < 8; ++c) EXPECT_EQ(rig.entry_times(c), times({850_ns})) << c;  // 100 + 500 + 250
    ASSERT_EQ(rig.entered[1].size(), 2u);
    EXPECT_EQ(rig.entered[1][0].at, 850_ns);
}

TEST(Irqchip, an_x2apic_all_but_self_shorthand_takes_the_router_once_for_every_cpu) {
    IntcRig rig(test::load_test_machine("toy8", {"intc.kind=x2apic_phys", "intc.fabric.router_service=100 ns"}));
    shorthand_then_unicast(rig);
    EXPECT_EQ(rig.send_done[0], 150_ns);  // fence 50 + one ICR write 100
    EXPECT_EQ(rig.intc->stats().register_writes, 2u);
    EXPECT_EQ(rig.intc->fabric().router().stats().busy, 200_ns);  // the broadcast, the unicast
    EXPECT_EQ(rig.intc->fabric().stats().delivered, 8u);
    EXPECT_EQ(rig.entry_times(7), times({1400_ns}));  // 150 + cross_package 1 us + 250
}

TEST(Irqchip, a_call_func_ipi_to_a_partial_mask_or_with_the_key_off_is_the_mask_send) {
    for (const bool key : {true, false}) {
        IntcRig rig(test::load_test_machine("toy8", {"intc.kind=x2apic_phys"}));
        rig.chip->configure({.apic_use_ipi_shorthand = key});
        auto body = [](IntcRig& r) -> sim::Proc {
            hw::Cpu& cpu = *r.cpus[0];
            const hw::CpuMask online = hw::CpuMask::all(8);
            hw::CpuMask partial = online;  // not cpu7
            partial.clear(0);
            partial.clear(7);
            cpu.local_irq_disable();
            co_await r.chip->send_call_func_ipi(cpu, partial, online, kVector);
            co_await cpu.local_irq_enable();
        };
        rig.cpus[0]->set_running(&rig.eng.spawn("cpu0", body(rig)));
        rig.others_busy();
        rig.eng.run();
        EXPECT_EQ(rig.intc->stats().register_writes, 6u) << key;
        EXPECT_EQ(rig.chip->stats().shorthand_sends, 0u) << key;
        EXPECT_TRUE(rig.entered[7].empty()) << key;
    }
}

TEST(Irqchip, a_call_func_ipi_whose_mask_holds_self_too_is_one_all_including_self_write) {
    // native_send_call_func_ipi: self in the mask -> apic->send_IPI_all (x2apic_send_IPI_all).
    IntcRig rig(test::load_test_machine("toy8", {"intc.kind=x2apic_phys"}));
    auto body = [](IntcRig& r) -> sim::Proc {
        hw::Cpu& cpu = *r.cpus[0];
        const hw::CpuMask online = hw::CpuMask::all(8);
        cpu.local_irq_disable();
        co_await r.chip->send_call_func_ipi(cpu, online, online, kVector);
        r.send_done[0] = cpu.now();
        co_await cpu.local_irq_enable();  // takes its own copy
        co_await cpu.compute(100_us);
    };
    rig.cpus[0]->set_running(&rig.eng.spawn("cpu0", body(rig)));
    rig.others_busy();
    rig.eng.run();
    EXPECT_EQ(rig.send_done[0], 150_ns);  // fence 50 + one ICR write 100
    EXPECT_EQ(rig.intc->stats().register_writes, 1u);
    EXPECT_EQ(rig.chip->stats().shorthand_sends, 1u);
    EXPECT_EQ(rig.intc->fabric().stats().delivered, 8u);
    EXPECT_EQ(rig.entry_times(0), times({900_ns}));  // 150 + self 500 + entry/EOI 250
    EXPECT_EQ(rig.cpus[0]->profile().time_in_label(hw::profile_label("x2apic_send_IPI_all")), 150_ns);
}

// default_send_IPI_single_phys saves IRQs off around its send (local_irq_save), so a sender that
// calls it with IRQs on (smp_call_function_single's path) takes no interrupt while it waits for
// its ICR. CPU 0 sends to 2, 3 and 4 one at a time with IRQs on; CPU 1's IPI to CPU 0 leaves at
// 150 ns and arrives at 650 ns (as CPU 0's first message, body at 900 ns in
// xapic_waits_for_its_own_icr_idle_between_targets), while CPU 0's third send waits for its ICR
// (busy until 750 ns: one more message in flight than there, CPU 1's). The IPI is taken when
// that send restores IRQs after its ICR write, at 850 ns: handler body at 850 + 200 (entry) +
// 50 (EOI) = 1100 ns, and the send returns after the 100 ns exit.
TEST(Irqchip, an_xapic_single_send_takes_no_interrupt_while_it_waits_for_its_icr) {
    IntcRig rig(test::load_test_machine("toy4", {"topology.cores_per_l3=4"}));
    auto body = [](IntcRig& r, hw::Cpu& cpu) -> sim::Proc {
        for (const hw::CpuId t : {2U, 3U, 4U}) {
            co_await r.chip->send_IPI(cpu, t, kVector);
            EXPECT_FALSE(cpu.irqs_disabled());
        }
        r.send_done[cpu.id()] = cpu.now();
        co_await cpu.compute(100_us);
    };
    rig.cpus[0]->set_running(&rig.eng.spawn("cpu0", body(rig, *rig.cpus[0])));
    rig.sender(1, rig.mask({0}));
    rig.others_busy();
    rig.eng.run();
    EXPECT_EQ(rig.entry_times(0), times({1100_ns}));
    EXPECT_EQ(rig.send_done[0], 1200_ns);
    EXPECT_EQ(rig.entry_times(4).size(), 1U);
}
