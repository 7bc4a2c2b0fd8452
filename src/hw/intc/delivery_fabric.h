// The interrupt delivery fabric: carries interrupt messages from a sender's interrupt
// controller to the target CPU's, with finite capacity and per-target acceptance.
//
// Rules (L = IntcSpec.delivery[distance(sender, target)], A = accept_time()):
//   * send() hands a message to the fabric at the current time. At most IntcSpec.capacity
//     messages hold a slot machine-wide; further messages wait FIFO for a slot and start
//     travelling when one is freed.
//   * A message that gets its slot at t1 arrives at the target's controller at t1 + L.
//   * The target's controller accepts one message at a time: a message arriving at ta is
//     delivered at max(ta, previous delivery to that target + A), in arrival order (FIFO for
//     equal times). An uncontended message is therefore delivered at exactly t1 + L; a burst to
//     one target is spaced A apart.
//   * At delivery the slot is freed (a message waiting at the target's door still holds its
//     buffer, so a hot target backs up the whole fabric) and the message takes effect:
//       fixed: cpus[target]->raise(Interrupt{vector, sender}) (the kernel's handler runs);
//       rar:   the RAR hook(target, sender): the target's microcode processes its action
//              vector, no kernel handler and no IRQ entry.
//   * Deliveries are URGENT events tagged kFabricTagBase + target (deterministic).
//
// A comes from the machine file ([intc.fabric] accept: a local APIC / GIC redistributor
// latching one message into IRR/pending); set_accept_time() overrides it (tests).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "hw/machine.h"
#include "sim/engine.h"
#include "sim/time.h"

namespace ipisim::hw {

class Cpu;

// How the target processes the message: a normal interrupt, or an Intel RAR request
// (APIC_DM_RAR = 0x300, handled by the target's microcode).
enum class DeliveryMode : uint8_t { fixed, rar };

inline constexpr uint32_t kFabricTagBase = 0x1F000000;

struct FabricStats {
    uint64_t messages = 0;  // handed to the fabric
    uint64_t delivered = 0;
    uint64_t rar_messages = 0;    // delivered in RAR mode
    uint64_t slot_waits = 0;      // messages that found the fabric full
    sim::Picos slot_wait_time;    // total time spent waiting for a slot
    uint64_t accept_waits = 0;    // messages that found their target's controller busy
    sim::Picos accept_wait_time;  // total time spent waiting at the target
    uint32_t max_in_flight = 0;   // high-water mark of in_flight()
};

class DeliveryFabric {
public:
    using RarHook = std::function<void(CpuId target, CpuId sender)>;

    // `cpus[i]` is CPU i (nullptr allowed for CPUs that only ever receive RAR messages).
    DeliveryFabric(sim::Engine& eng, const MachineSpec& spec, std::vector<Cpu*> cpus);
    DeliveryFabric(const DeliveryFabric&) = delete;
    DeliveryFabric& operator=(const DeliveryFabric&) = delete;

    // A message enters the fabric now.
    void send(CpuId sender, CpuId target, uint32_t vector, DeliveryMode mode);

    void set_rar_hook(RarHook hook) { rar_hook_ = std::move(hook); }
    void set_accept_time(sim::Picos t) { accept_ = t; }
    [[nodiscard]] sim::Picos accept_time() const { return accept_; }

    // Uncontended delivery latency from sender to target.
    [[nodiscard]] sim::Picos latency(CpuId sender, CpuId target) const;
    [[nodiscard]] uint32_t capacity() const { return capacity_; }
    // Messages handed to the fabric and not yet delivered (travelling, waiting for a slot or
    // waiting at their target).
    [[nodiscard]] uint32_t in_flight() const { return occupied_ + static_cast<uint32_t>(waiting_.size()); }
    [[nodiscard]] uint32_t slots_occupied() const { return occupied_; }
    [[nodiscard]] const FabricStats& stats() const { return stats_; }

private:
    struct Message {
        CpuId sender = 0;
        CpuId target = 0;
        uint32_t vector = 0;
        DeliveryMode mode = DeliveryMode::fixed;
        sim::Picos queued_at;  // when it started waiting (slot or acceptance)
    };
    uint32_t allocate(const Message& m);
    void start(uint32_t index);  // takes a slot now and travels
    static void on_arrive(void* obj, uint32_t index);
    static void on_deliver(void* obj, uint32_t index);
    void deliver(uint32_t index);

    sim::Engine& eng_;
    const MachineSpec& spec_;
    std::vector<Cpu*> cpus_;
    uint32_t capacity_;
    sim::Picos accept_;
    RarHook rar_hook_;
    std::vector<Message> messages_;        // pool, indexed by event arg
    std::vector<uint32_t> free_;           // free pool indices (LIFO: deterministic)
    std::deque<uint32_t> waiting_;         // messages waiting for a slot, FIFO
    std::vector<sim::Picos> next_accept_;  // per target: earliest next delivery
    uint32_t occupied_ = 0;
    FabricStats stats_;
};

}  // namespace ipisim::hw
