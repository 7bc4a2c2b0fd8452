// What a recorder outside the model (a trace, latency histograms) sees of a running simulation.
// The model calls it through one-line hooks at a few points: the profile's function changes
// (hw/cpu/profile.cpp), the interrupt fabric's sends and deliveries (hw/intc/delivery_fabric.cpp),
// TLB invalidations (hw/tlb/tlb.cpp), call_single_queue pushes and pops (kernel/smp/smp.cpp) and
// the timed kernel operations (record_latency). Observers only read: nothing they do changes
// the simulation, its events or its fingerprint.
//
// Two levels, both per thread (simulations may run on several) and off by default:
//   observer(): messages and operation latencies (a few events per IPI or flush);
//   tracer():   also the per-CPU timeline (every function change, TLB invalidation and queue
//               change), installed only while a trace records.
// A hook costs one thread-local load and a branch when nothing observes at its level:
//
//   if (hw::Observer* t = hw::tracer()) t->tlb_invalidated(cpu_, inv, n);
//   hw::record_latency("flush_tlb_mm_range", cpu.now() - started);
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace ipisim::sim {
class Engine;
}

namespace ipisim::hw {

using CpuId = uint32_t;
class Cpu;
class CpuProfile;
struct MachineSpec;
struct Invalidation;
enum class Activity : uint8_t;

// One message of the interrupt delivery fabric, at its send or its delivery. `slot` identifies
// it while it is in flight (it is reused afterwards); `in_flight` counts messages in the fabric
// after the event.
struct FabricEvent {
    CpuId sender = 0;
    CpuId target = 0;
    uint32_t vector = 0;
    bool rar = false;  // an Intel RAR request (handled by the target's microcode), else an IPI
    uint32_t slot = 0;
    uint32_t in_flight = 0;
    sim::Picos now;
};

class Observer {
public:
    virtual ~Observer() = default;

    // --- observer() level ---
    // A machine's CPUs and interrupt fabric were built on `eng`, whose clock stamps the events
    // that carry no time; its CPUs are cpus[0..n).
    virtual void machine_built(const sim::Engine& /*eng*/, const MachineSpec& /*spec*/,
                               const std::vector<Cpu*>& /*cpus*/) {}
    virtual void message_sent(const FabricEvent& /*e*/) {}
    virtual void message_delivered(const FabricEvent& /*e*/) {}
    // A timed operation finished (names are kernel function names: "flush_tlb_mm_range").
    virtual void latency(std::string_view /*op*/, sim::Picos /*duration*/) {}
    // A CPU's profile started a fresh measurement window (the workload's warm-up ended).
    virtual void profile_reset(const CpuProfile& /*profile*/, sim::Picos /*now*/) {}

    // --- tracer() level ---
    // From `now` the CPU's time goes to (label, activity) (hw/cpu/profile.h).
    virtual void function_changed(const CpuProfile& /*profile*/, uint32_t /*label*/, Activity /*activity*/,
                                  sim::Picos /*now*/) {}
    // Work the CPU did not choose (RAR microcode) occupied it during [now - duration, now].
    virtual void work_stolen(const CpuProfile& /*profile*/, uint32_t /*label*/, sim::Picos /*duration*/,
                             sim::Picos /*now*/) {}
    virtual void tlb_invalidated(CpuId /*cpu*/, const Invalidation& /*inv*/, size_t /*removed*/) {}
    // A per-CPU kernel queue ("call_single_queue") now holds `depth` entries.
    virtual void queue_changed(CpuId /*cpu*/, std::string_view /*queue*/, size_t /*depth*/, sim::Picos /*now*/) {}
};

namespace detail {
extern constinit thread_local Observer* current_observer;
extern constinit thread_local Observer* current_tracer;
}  // namespace detail

[[nodiscard]] inline Observer* observer() {
    return detail::current_observer;
}
[[nodiscard]] inline Observer* tracer() {
    return detail::current_tracer;
}

inline void record_latency(std::string_view op, sim::Picos duration) {
    if (Observer* o = observer()) o->latency(op, duration);
}

// Installs an observer for the current thread until the scope ends (then the previous one is
// back). With `timeline`, it is also the tracer.
class ObserverScope {
public:
    ObserverScope(Observer& o, bool timeline);
    ~ObserverScope();
    ObserverScope(const ObserverScope&) = delete;
    ObserverScope& operator=(const ObserverScope&) = delete;

private:
    Observer* saved_observer_;
    Observer* saved_tracer_;
};

}  // namespace ipisim::hw
