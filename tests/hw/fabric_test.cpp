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

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::DeliveryMode;
using sim::Picos;

namespace {

hw::MachineSpec toy_machine(const std::string& name, const std::vector<std::string>& overrides = {}) {
    config::Document doc = config::Document::load(std::string(IPISIM_SOURCE_DIR) + "/machines/" + name + ".toml");
    for (const std::string& o : overrides) doc.apply_override(o);
    return hw::load_machine(doc, name);
}

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
    FabricRig rig(toy_machine("toy8"));
    EXPECT_EQ(rig.fabric.latency(0, 1), 500_ns);
    EXPECT_EQ(rig.fabric.latency(0, 5), 1000_ns);
    rig.send(0, 5);
    EXPECT_EQ(rig.fabric.in_flight(), 1u);
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{1000_ns, 5, 0}}));
    EXPECT_EQ(rig.fabric.in_flight(), 0u);
}

TEST(Fabric, with_capacity_one_the_second_message_waits_for_the_first) {
    FabricRig rig(toy_machine("toy2", {"intc.fabric.capacity=1"}));
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
    FabricRig rig(toy_machine("toy8", {"intc.fabric.capacity=2"}));
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
    FabricRig rig(toy_machine("toy2"));
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
    FabricRig rig(toy_machine("toy8"));
    rig.send(5, 0);  // cross_package: arrives at 1 us
    rig.send(1, 0);  // same_l3: arrives at 500 ns
    rig.eng.run();
    EXPECT_EQ(rig.log, (Log{{500_ns, 0, 1}, {1000_ns, 0, 5}}));
    EXPECT_EQ(rig.fabric.stats().accept_waits, 0u);
}

TEST(Fabric, a_rar_message_without_a_registered_hook_is_an_error) {
    const hw::MachineSpec spec = toy_machine("toy2");
    sim::Engine eng;
    hw::DeliveryFabric fabric(eng, spec, {nullptr, nullptr});
    EXPECT_THROW(fabric.send(0, 1, 0xe0, DeliveryMode::rar), std::logic_error);
    EXPECT_THROW(fabric.send(0, 1, 0xfb, DeliveryMode::fixed), std::logic_error);  // no CPU to raise
}
