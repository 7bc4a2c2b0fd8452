// The hardware side of interrupt delivery: the register model of an interrupt controller
// (x2APIC ICR MSR, xAPIC ICR/ICR2 MMIO with its delivery-status bit, GICv3 ICC_SGI1R_EL1),
// chosen by name in the machine file ([intc] kind, hw/intc/intc_type.h), over a shared
// DeliveryFabric. The hardware knows only what the silicon does: the kernel's send loops that
// drive these registers (default_send_IPI_mask_sequence_phys, __x2apic_send_IPI_mask,
// gic_ipi_send_mask) are in kernel/irqchip.
//
//   auto intc = hw::make_interrupt_controller(spec, eng, cpu_pointers);   // spec.intc.kind
//   auto chip = kernel::irqchip::make_irqchip(*intc);                     // its Linux driver
//   co_await chip->send_IPI_mask(cpu, targets, CALL_FUNCTION_VECTOR);
// and inside the x2APIC driver, one register write:
//   co_await x2apic.write_icr(cpu, x2apic.apic_id(3), hw::X2apic::DestMode::physical, vector);
//
// Register accesses are awaited by the sending CPU's process and cost sender.stall() time; a
// message enters the fabric when the register write that triggers it retires.
//
// A new controller is one .cpp: derive, give it its register primitives and its parameter
// struct with a config::Schema, and register it with hw::IntcRegistration (intc_type.h); its
// kernel driver is one kernel/irqchip .cpp registered under the same name.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hw/intc/delivery_fabric.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "sim/task.h"

namespace ipisim::hw {

class Cpu;

// The ICR destination shorthands Linux uses (Intel SDM vol. 3A, "Interrupt Command Register
// (ICR)", bits 19:18: 10b all including self, 11b all excluding self; APIC_DEST_ALLINC and
// APIC_DEST_ALLBUT in arch/x86/include/asm/apicdef.h). The destination field is ignored.
enum class DestShorthand : uint8_t { all_including_self, all_excluding_self };

struct IntcStats {
    uint64_t register_writes = 0;  // writes that trigger a send: ICR (xAPIC low half, x2APIC MSR), SGI1R
    uint64_t icr_polls = 0;        // xAPIC: ICR reads waiting for the delivery-status bit to clear
};

class InterruptController {
public:
    virtual ~InterruptController() = default;
    InterruptController() = default;
    InterruptController(const InterruptController&) = delete;
    InterruptController& operator=(const InterruptController&) = delete;

    // Binds the controller to a machine; done by make_interrupt_controller(). `cpus[i]` is CPU i.
    void attach(sim::Engine& eng, const MachineSpec& spec, std::vector<Cpu*> cpus);

    [[nodiscard]] DeliveryFabric& fabric() { return *fabric_; }
    [[nodiscard]] const DeliveryFabric& fabric() const { return *fabric_; }
    [[nodiscard]] const IntcStats& stats() const { return stats_; }
    [[nodiscard]] const MachineSpec& spec() const { return *spec_; }
    [[nodiscard]] const Topology& topology() const { return spec_->topology; }
    [[nodiscard]] uint32_t nr_cpus() const { return spec_->topology.nr_cpus(); }
    // Whether a RAR-mode message is a request/reply round trip (docs/mechanisms.md §3.5): the
    // target's local APIC accepts it only while its RAR microcode is not processing (the
    // platform then gates the fabric's RAR acceptance on hw::Rar), and the sender sees the reply.
    [[nodiscard]] virtual bool rar_round_trip() const { return false; }
    // Whether CPU c's controller accepts fixed interrupts of a destination shorthand: false
    // once its x86 local APIC is software-disabled (SVR APIC_SPIV_APIC_ENABLED clear), as a CPU
    // going offline does in apic_soft_disable() (arch/x86/kernel/apic/apic.c, since v5.4) so
    // that a broadcast cannot reach it. Only shorthands consult it: the kernel never names an
    // offline CPU as a destination.
    void set_software_enabled(CpuId c, bool enabled) { software_enabled_.at(c) = enabled ? 1 : 0; }
    [[nodiscard]] bool software_enabled(CpuId c) const { return software_enabled_.at(c) != 0; }

protected:
    // Per-machine state (e.g. one ICR per CPU, id lookup tables), after attach().
    virtual void on_attach() {}
    // The target's controller accepted a message this controller sent (DeliveryFabric).
    virtual void on_accepted(CpuId /*sender*/, CpuId /*target*/, DeliveryMode /*mode*/) {}

    [[nodiscard]] sim::Engine& engine() const { return *eng_; }
    // The message leaves the sender's controller now (the triggering write has retired).
    // Returns how long it waits for the package's interrupt router (DeliveryFabric::send).
    sim::Picos post(const Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode);
    // One write addressed to several CPUs (a logical cluster, a GICv3 target list): one
    // message for the router, one copy to each target, in the order given. Returns the wait.
    sim::Picos post_group(const Cpu& sender, const std::vector<CpuId>& targets, uint32_t vector, DeliveryMode mode);
    // A destination-shorthand write: post_group() to every software-enabled CPU of the
    // machine in CPU order, the sender included or not. Returns the router wait.
    sim::Picos post_shorthand(const Cpu& sender, DestShorthand which, uint32_t vector, DeliveryMode mode);

    IntcStats stats_;

private:
    sim::Engine* eng_ = nullptr;
    const MachineSpec* spec_ = nullptr;
    std::unique_ptr<DeliveryFabric> fabric_;
    std::vector<CpuId> shorthand_targets_;   // scratch of post_shorthand()
    std::vector<uint8_t> software_enabled_;  // per CPU
};

// The controller named by spec.intc.kind, attached to the machine. Throws
// std::invalid_argument for an unregistered kind (naming the known ones) or a CPU list that
// does not match the machine.
std::unique_ptr<InterruptController> make_interrupt_controller(const MachineSpec& spec, sim::Engine& eng,
                                                               std::vector<Cpu*> cpus);

}  // namespace ipisim::hw
