// The interrupt delivery fabric: carries interrupt messages from a sender's interrupt
// controller to the target CPU's, through the package's interrupt router, with finite capacity
// and per-target acceptance.
//
// Rules (L = IntcSpec.delivery[distance(sender, target)], A = accept_time(),
//        R = IntcSpec.router_service):
//   * Router (InterruptRouter, docs/mechanisms.md §3.5): every message is routed by its
//     sender's package router, one at a time, R each, FIFO in the order sent. A message sent
//     at t0 waits W for it; send() returns W (an xAPIC sender's ICR stays busy for it). L
//     includes the router's own R; W comes on top. One register write addressed to several
//     CPUs (x2APIC cluster, GICv3 target list) is one message for the router: route() once,
//     then send_routed() per target. R = 0: no router, W = 0.
//   * After the router (at t0 + W), at most IntcSpec.capacity messages hold a slot
//     machine-wide; further messages wait FIFO for a slot and start travelling when one is
//     freed.
//   * A message that gets its slot at t1 arrives at the target's controller at t1 + L.
//   * The target's controller takes one message at a time: a message arriving at ta is
//     accepted at max(ta, previous acceptance at that target + A), in arrival order (FIFO for
//     equal times). An uncontended message is therefore delivered at exactly t1 + L; a burst to
//     one target is spaced A apart.
//   * RAR round trip (InterruptController::rar_round_trip(), xAPIC; docs/mechanisms.md §3.5):
//     with a RAR busy test registered (set_rar_busy), a RAR-mode message is accepted only while
//     the target's RAR microcode is not processing (rar_busy(target) false); otherwise it waits
//     at the target's door, FIFO, until the owner of the microcode calls rar_ready(target).
//     Without one a RAR-mode message is accepted like any other and the microcode latches it
//     (a rescan).
//   * At acceptance the slot is freed (a message waiting at the target's door still holds its
//     buffer, so a hot target backs up the whole fabric), the accept hook is told (sender,
//     target, mode) and the message takes effect:
//       fixed: cpus[target]->raise(Interrupt{vector, sender}) (the kernel's handler runs);
//       rar:   the RAR hook(target, sender): the target's microcode processes its action
//              vector, no kernel handler and no IRQ entry.
//   * Events are URGENT and tagged kFabricTagBase + target (deterministic).
//
// A comes from the machine file ([intc.fabric] accept: a local APIC / GIC redistributor
// latching one message into IRR/pending); set_accept_time() overrides it (tests).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "hw/intc/interrupt_router.h"
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
    uint64_t door_waits = 0;      // RAR round trip: messages that found the microcode busy
    sim::Picos door_wait_time;    // total time they waited at the door
    uint32_t max_in_flight = 0;   // high-water mark of in_flight()
};

class DeliveryFabric {
public:
    using RarHook = std::function<void(CpuId target, CpuId sender)>;
    using AcceptHook = std::function<void(CpuId sender, CpuId target, DeliveryMode mode)>;

    // `cpus[i]` is CPU i (nullptr allowed for CPUs that only ever receive RAR messages).
    DeliveryFabric(sim::Engine& eng, const MachineSpec& spec, std::vector<Cpu*> cpus);
    DeliveryFabric(const DeliveryFabric&) = delete;
    DeliveryFabric& operator=(const DeliveryFabric&) = delete;

    // A message enters the fabric now. Returns how long it waits for its package's router
    // (zero when the router is free or not modeled).
    sim::Picos send(CpuId sender, CpuId target, uint32_t vector, DeliveryMode mode);
    // One register write addressed to several CPUs: route() reserves the router once and
    // returns the wait; send_routed() then hands each target's copy over with that wait.
    sim::Picos route(CpuId sender);
    void send_routed(CpuId sender, CpuId target, uint32_t vector, DeliveryMode mode, sim::Picos router_wait);

    void set_rar_hook(RarHook hook) { rar_hook_ = std::move(hook); }
    void set_accept_hook(AcceptHook hook) { accept_hook_ = std::move(hook); }
    // RAR round trip: whether the target's microcode is processing now; rar_ready() when it
    // stopped (accepts the next RAR waiting at its door, if any).
    void set_rar_busy(std::function<bool(CpuId)> busy) { rar_busy_ = std::move(busy); }
    void rar_ready(CpuId target);
    void set_accept_time(sim::Picos t) { accept_ = t; }
    [[nodiscard]] sim::Picos accept_time() const { return accept_; }

    // Uncontended delivery latency from sender to target.
    [[nodiscard]] sim::Picos latency(CpuId sender, CpuId target) const;
    [[nodiscard]] uint32_t capacity() const { return capacity_; }
    // Messages handed to the fabric and not yet delivered (waiting for the router, for a
    // slot, travelling, or waiting at their target).
    [[nodiscard]] uint32_t in_flight() const { return routing_ + occupied_ + static_cast<uint32_t>(waiting_.size()); }
    [[nodiscard]] uint32_t slots_occupied() const { return occupied_; }
    [[nodiscard]] const InterruptRouter& router() const { return router_; }
    [[nodiscard]] const FabricStats& stats() const { return stats_; }

private:
    struct Message {
        CpuId sender = 0;
        CpuId target = 0;
        uint32_t vector = 0;
        DeliveryMode mode = DeliveryMode::fixed;
        sim::Picos queued_at;  // when it started waiting (slot, acceptance or door)
    };
    void check(CpuId sender, CpuId target, DeliveryMode mode) const;
    uint32_t allocate(const Message& m);
    // A checked message enters: after `router_wait`, or now.
    void enqueue(CpuId sender, CpuId target, uint32_t vector, DeliveryMode mode, sim::Picos router_wait);
    static void on_routed(void* obj, uint32_t index);
    void enter(uint32_t index);  // past the router: takes a slot now, or waits for one
    void start(uint32_t index);  // takes a slot now and travels
    static void on_arrive(void* obj, uint32_t index);
    static void on_deliver(void* obj, uint32_t index);
    void deliver(uint32_t index);  // the target's controller has it: door, then accept
    void accept(uint32_t index);

    sim::Engine& eng_;
    const MachineSpec& spec_;
    std::vector<Cpu*> cpus_;
    uint32_t capacity_;
    sim::Picos accept_;
    InterruptRouter router_;
    RarHook rar_hook_;
    AcceptHook accept_hook_;
    std::function<bool(CpuId)> rar_busy_;
    std::vector<Message> messages_;           // pool, indexed by event arg
    std::vector<uint32_t> free_;              // free pool indices (LIFO: deterministic)
    std::deque<uint32_t> waiting_;            // messages waiting for a slot, FIFO
    std::vector<sim::Picos> next_accept_;     // per target: earliest next acceptance
    std::vector<std::deque<uint32_t>> door_;  // per target: RAR messages waiting for the microcode
    uint32_t occupied_ = 0;
    uint32_t routing_ = 0;  // messages waiting for their package's router
    FabricStats stats_;
};

}  // namespace ipisim::hw
