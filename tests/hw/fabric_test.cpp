// Delivery fabric contracts: latency by distance, finite capacity (FIFO wait for a slot),
// per-target acceptance, RAR-mode delivery. Messages are sent in RAR mode to a recording hook,
// so no CPU model is needed. toy2: delivery 500 ns; toy8: same_l3 500, cross_package 1 us.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "hw/intc/delivery_fabric.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::DeliveryMode;
using sim::Picos;

namespace {

// (time, target, sender) of each RAR delivery.
using Log = std::vector<std::tuple<Picos, hw::CpuId, hw::CpuId>>;

struct FabricRig {
    hw::MachineSpec spec;
    sim::Engine eng;
    hw::DeliveryFabric fabric;
    Log log;

    explicit FabricRig(hw::MachineSpec s)
        : spec(std::move(s)), fabric(eng, spec, std::vector<hw::Cpu*>(spec.topology.nr_cpus(), nullptr)) {
        fabric.set_rar_hook(
            [this](hw::CpuId target, hw::CpuId sender) { log.emplace_back(eng.now(), target, sender); });
    }
    void send(hw::CpuId sender, hw::CpuId target) { fabric.send(sender, target, 0xe0, DeliveryMode::rar); }
};

}  // namespace

TEST(Fabric, an_uncontended_message_takes_the_latency_of_its_distance_class) {
    FabricRig rig(test::load_test_machine("toy8"));
    EXPECT_EQ(rig.fabric.latency(0, 1), 500_ns);
    EXPECT_EQ(rig.fabric.latency(0, 5), 1000_ns);
    rig.send(0, 5);
    EXPECT_EQ(rig.fabric.in_flight(), 1u);
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{1000_ns, 5, 0}}));
    EXPECT_EQ(rig.fabric.in_flight(), 0u);
}

TEST(Fabric, with_capacity_one_the_second_message_waits_for_the_first) {
    FabricRig rig(test::load_test_machine("toy2", {"intc.fabric.capacity=1"}));
    rig.send(0, 1);
    rig.send(1, 0);
    EXPECT_EQ(rig.fabric.in_flight(), 2u);
    EXPECT_EQ(rig.fabric.slots_occupied(), 1u);
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{500_ns, 1, 0}, {1000_ns, 0, 1}}));
    EXPECT_EQ(rig.fabric.stats().slot_waits, 1u);
    EXPECT_EQ(rig.fabric.stats().slot_wait_time, 500_ns);
    EXPECT_EQ(rig.fabric.stats().max_in_flight, 2u);
}

TEST(Fabric, many_simultaneous_senders_queue_fifo_for_slots) {
    FabricRig rig(test::load_test_machine("toy8", {"intc.fabric.capacity=2"}));
    for (hw::CpuId s = 1; s <= 4; ++s) rig.send(s, 0);  // cpu1 500 ns away, cpu2-3 750, cpu4 1 us
    rig.eng.run();
    ASSERT_EQ(rig.log.size(), 4u);
    // Slots: cpu1's message (500) and cpu2's (750); cpu3's starts at 500 (+750), cpu4's at 750.
    EXPECT_EQ(rig.log[0], std::make_tuple(500_ns, 0u, 1u));
    EXPECT_EQ(rig.log[1], std::make_tuple(750_ns, 0u, 2u));
    EXPECT_EQ(rig.log[2], std::make_tuple(1250_ns, 0u, 3u));
    EXPECT_EQ(rig.log[3], std::make_tuple(1750_ns, 0u, 4u));  // cross_package from 750
    EXPECT_EQ(rig.fabric.stats().slot_waits, 2u);
}

TEST(Fabric, per_target_acceptance_serializes_a_burst_to_one_target) {
    FabricRig rig(test::load_test_machine("toy2"));
    rig.fabric.set_accept_time(100_ns);
    rig.send(0, 1);
    rig.send(0, 1);
    rig.send(0, 1);
    rig.send(1, 0);  // another target: not held up
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{500_ns, 1, 0}, {500_ns, 0, 1}, {600_ns, 1, 0}, {700_ns, 1, 0}}));
    EXPECT_EQ(rig.fabric.stats().accept_waits, 2u);
    EXPECT_EQ(rig.fabric.stats().accept_wait_time, 300_ns);
}

TEST(Fabric, a_nearer_message_is_accepted_in_arrival_order_not_behind_a_farther_one) {
    FabricRig rig(test::load_test_machine("toy8"));
    rig.send(5, 0);  // cross_package: arrives at 1 us
    rig.send(1, 0);  // same_l3: arrives at 500 ns
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{500_ns, 0, 1}, {1000_ns, 0, 5}}));
    EXPECT_EQ(rig.fabric.stats().accept_waits, 0u);
}

TEST(Fabric, a_rar_message_without_a_registered_hook_is_an_error) {
    const hw::MachineSpec spec = test::load_test_machine("toy2");
    sim::Engine eng;
    hw::DeliveryFabric fabric(eng, spec, {nullptr, nullptr});
    EXPECT_THROW(fabric.send(0, 1, 0xe0, DeliveryMode::rar), std::logic_error);
    EXPECT_THROW(fabric.send(0, 1, 0xfb, DeliveryMode::fixed), std::logic_error);  // no CPU to raise
}

// Interrupt router (docs/mechanisms.md §3.5): one per package, R per message, FIFO in send
// order; the wait comes on top of the delivery latency (which includes R).

TEST(Fabric, a_message_sent_while_the_router_routes_another_waits_for_it) {
    FabricRig rig(test::load_test_machine("toy2", {"intc.fabric.router_service=100 ns"}));
    EXPECT_EQ(rig.fabric.send(0, 1, 0xe0, DeliveryMode::rar), Picos::zero());
    EXPECT_EQ(rig.fabric.send(1, 0, 0xe0, DeliveryMode::rar), 100_ns);
    EXPECT_EQ(rig.fabric.router().free_at(0), 200_ns);
    EXPECT_EQ(rig.fabric.in_flight(), 2u);  // one travelling, one waiting for the router
    rig.eng.run_until(600_ns - Picos(1));
    EXPECT_EQ(rig.log, (Log{{500_ns, 1, 0}}));
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{500_ns, 1, 0}, {600_ns, 0, 1}}));
    EXPECT_EQ(rig.fabric.router().stats().waits, 1u);
    EXPECT_EQ(rig.fabric.router().stats().wait_time, 100_ns);
    EXPECT_EQ(rig.fabric.router().stats().busy, 200_ns);
}

TEST(Fabric, the_router_serves_simultaneous_senders_in_the_order_they_sent) {
    FabricRig rig(test::load_test_machine("toy8", {"intc.fabric.router_service=100 ns"}));
    std::vector<Picos> waits;
    for (hw::CpuId s = 0; s < 4; ++s) waits.push_back(rig.fabric.send(s, 0, 0xe0, DeliveryMode::rar));
    EXPECT_EQ(waits, (std::vector<Picos>{0_ns, 100_ns, 200_ns, 300_ns}));
    rig.eng.run();
    // cpu0 -> 0 is `self` (500); cpu1 same_l3 500, cpu2-3 same_die 750, each after its wait.
    EXPECT_EQ(rig.log, (Log{{500_ns, 0, 0}, {600_ns, 0, 1}, {950_ns, 0, 2}, {1050_ns, 0, 3}}));
}

TEST(Fabric, a_router_that_went_idle_adds_nothing_to_a_later_message) {
    FabricRig rig(test::load_test_machine("toy2", {"intc.fabric.router_service=100 ns"}));
    rig.send(0, 1);
    rig.eng.run_until(100_ns);
    EXPECT_EQ(rig.fabric.send(1, 0, 0xe0, DeliveryMode::rar), Picos::zero());  // free again at exactly 100
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{500_ns, 1, 0}, {600_ns, 0, 1}}));
    EXPECT_EQ(rig.fabric.router().stats().waits, 0u);
}

TEST(Fabric, each_package_has_its_own_router) {
    FabricRig rig(test::load_test_machine("toy8", {"intc.fabric.router_service=100 ns"}));
    EXPECT_EQ(rig.fabric.send(0, 1, 0xe0, DeliveryMode::rar), Picos::zero());  // package 0
    EXPECT_EQ(rig.fabric.send(4, 5, 0xe0, DeliveryMode::rar), Picos::zero());  // package 1
    EXPECT_EQ(rig.fabric.send(5, 0, 0xe0, DeliveryMode::rar), 100_ns);         // package 1 again
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{500_ns, 1, 0}, {500_ns, 5, 4}, {1100_ns, 0, 5}}));
}

TEST(Fabric, one_write_addressed_to_several_cpus_is_one_router_message) {
    FabricRig rig(test::load_test_machine("toy8", {"intc.fabric.router_service=100 ns"}));
    rig.fabric.send(1, 0, 0xe0, DeliveryMode::rar);  // router busy until 100
    const Picos wait = rig.fabric.route(0);
    EXPECT_EQ(wait, 100_ns);
    for (hw::CpuId t : {1u, 2u, 3u}) rig.fabric.send_routed(0, t, 0xe0, DeliveryMode::rar, wait);
    EXPECT_EQ(rig.fabric.router().free_at(0), 200_ns);  // one occupancy for the three copies
    EXPECT_EQ(rig.fabric.send(2, 3, 0xe0, DeliveryMode::rar), 200_ns);
    rig.eng.run();
    // cpu0's copies leave the router at 100: cpu1 same_l3 500, cpu2-3 same_die 750; cpu2 -> 3
    // is same_l3, after waiting 200.
    EXPECT_EQ(rig.log, (Log{{500_ns, 0, 1}, {600_ns, 1, 0}, {700_ns, 3, 2}, {850_ns, 2, 0}, {850_ns, 3, 0}}));
}

TEST(Fabric, without_a_router_simultaneous_messages_do_not_wait) {
    FabricRig rig(test::load_test_machine("toy2"));
    EXPECT_EQ(rig.fabric.send(0, 1, 0xe0, DeliveryMode::rar), Picos::zero());
    EXPECT_EQ(rig.fabric.send(1, 0, 0xe0, DeliveryMode::rar), Picos::zero());
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{500_ns, 1, 0}, {500_ns, 0, 1}}));
    EXPECT_EQ(rig.fabric.router().stats().busy, Picos::zero());
}
