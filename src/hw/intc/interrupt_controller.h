// The sender side of interrupt delivery: an interrupt controller model (x2APIC physical or
// cluster, xAPIC MMIO, GICv3), chosen by name in the machine file ([intc] kind), over a shared
// DeliveryFabric.
//
//   auto intc = hw::make_interrupt_controller(spec, eng, cpu_pointers);
//   cpu.local_irq_disable();
//   co_await intc->send_ipi_mask(cpu, targets, CALL_FUNCTION_VECTOR);
//   co_await cpu.local_irq_enable();
//
// The send methods run in the sending CPU's process (normally with IRQs disabled by the
// caller, as in the kernel). Sender-side costs (ICR/SGI1R writes, fences, barriers, ICR polls)
// are spent with sender.stall() inside profile scopes named after the kernel functions, so a
// profile shows where send time goes. A message enters the fabric when the register write that
// triggers it retires. Targets are served in ascending CPU order, like for_each_cpu().
//
// A new controller is one .cpp: derive, implement do_send_ipi_mask (and do_send_ipi when the
// single-target path differs), and register it under its machine-file name:
//   static const sim::Registration<InterruptController, MyIntc> reg("intc", "my_intc", "...");
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "hw/cpumask.h"
#include "hw/intc/delivery_fabric.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "sim/task.h"

namespace ipisim::hw {

class Cpu;

struct IntcStats {
    uint64_t sends = 0;            // send_ipi / send_ipi_mask calls
    uint64_t register_writes = 0;  // writes that trigger a send: ICR (xAPIC low half, x2APIC MSR), SGI1R
    uint64_t icr_polls = 0;        // xAPIC: ICR reads in apic_mem_wait_icr_idle
};

class InterruptController {
public:
    virtual ~InterruptController() = default;
    InterruptController() = default;
    InterruptController(const InterruptController&) = delete;
    InterruptController& operator=(const InterruptController&) = delete;

    // Binds the controller to a machine; done by make_interrupt_controller(). `cpus[i]` is CPU i.
    void attach(sim::Engine& eng, const MachineSpec& spec, std::vector<Cpu*> cpus);

    // Sends `vector` to every CPU in `targets` (the sender itself included if set).
    sim::Task<> send_ipi_mask(Cpu& sender, const CpuMask& targets, uint32_t vector,
                              DeliveryMode mode = DeliveryMode::fixed);
    // Sends `vector` to one CPU (apic->send_IPI / a one-CPU gic_ipi_send_mask).
    sim::Task<> send_ipi(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode = DeliveryMode::fixed);

    [[nodiscard]] DeliveryFabric& fabric() { return *fabric_; }
    [[nodiscard]] const DeliveryFabric& fabric() const { return *fabric_; }
    [[nodiscard]] const IntcStats& stats() const { return stats_; }
    [[nodiscard]] const MachineSpec& spec() const { return *spec_; }

protected:
    virtual sim::Task<> do_send_ipi_mask(Cpu& sender, const CpuMask& targets, uint32_t vector, DeliveryMode mode) = 0;
    // Default: a one-CPU mask through do_send_ipi_mask.
    virtual sim::Task<> do_send_ipi(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode);
    // Per-machine state (e.g. one ICR per CPU), after attach().
    virtual void on_attach() {}
    // The target's controller accepted a message this controller sent (DeliveryFabric).
    virtual void on_accepted(CpuId /*sender*/, CpuId /*target*/, DeliveryMode /*mode*/) {}

    [[nodiscard]] const IntcSpec& costs() const { return spec_->intc; }
    [[nodiscard]] const Topology& topology() const { return spec_->topology; }
    [[nodiscard]] sim::Engine& engine() const { return *eng_; }
    // The message leaves the sender's controller now (the triggering write has retired).
    // Returns how long it waits for the package's interrupt router (DeliveryFabric::send).
    sim::Picos post(const Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode);
    // One write addressed to several CPUs (a logical cluster, a GICv3 target list): one
    // message for the router, one copy to each target.
    sim::Picos post_group(const Cpu& sender, const std::vector<CpuId>& targets, uint32_t vector, DeliveryMode mode);

    IntcStats stats_;

private:
    void check_attached() const;

    sim::Engine* eng_ = nullptr;
    const MachineSpec* spec_ = nullptr;
    std::unique_ptr<DeliveryFabric> fabric_;
};

// The controller named by spec.intc.kind (a registered "intc" component), attached to the
// machine. Throws std::invalid_argument for an unregistered kind (naming the known ones) or a
// CPU list that does not match the machine.
std::unique_ptr<InterruptController> make_interrupt_controller(const MachineSpec& spec, sim::Engine& eng,
                                                               std::vector<Cpu*> cpus);

}  // namespace ipisim::hw
