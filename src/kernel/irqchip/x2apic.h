// The x2APIC drivers (arch/x86/kernel/apic/x2apic_phys.c, x2apic_cluster.c; docs/mechanisms.md
// 4.2) over hw::X2apic: weak_wrmsr_fence() once per send call, then ICR writes, no wait for
// ICR idle. A single-target send (apic->send_IPI = x2apic_send_IPI) is the fence and one
// physical-destination write in both drivers; so is a destination-shorthand send
// (x2apic_send_IPI_allbutself / x2apic_send_IPI_all, shared by both drivers since v5.4).
#pragma once

#include "hw/intc/x2apic.h"
#include "kernel/irqchip/irqchip.h"

namespace ipisim::kernel::irqchip {

class X2apicDriver : public IrqchipOn<hw::X2apic> {
protected:
    // x2apic_send_IPI(cpu, vector)
    sim::Task<> do_send_IPI(hw::Cpu& self, hw::CpuId target, uint32_t vector, hw::DeliveryMode mode) override;
    [[nodiscard]] bool has_ipi_shorthand() const final { return true; }
    // x2apic_send_IPI_allbutself(vector) / x2apic_send_IPI_all(vector)
    sim::Task<> do_send_IPI_allbutself(hw::Cpu& self, const hw::CpuMask& online, uint32_t vector) final;
    sim::Task<> do_send_IPI_all(hw::Cpu& self, const hw::CpuMask& online, uint32_t vector) final;
    // weak_wrmsr_fence(): mfence; lfence (patched out on AMD: the machine's fence cost is 0).
    sim::Task<> weak_wrmsr_fence(hw::Cpu& self);
    // __x2apic_send_IPI_dest(dest, vector, dest_mode): one native_x2apic_icr_write().
    sim::Task<> __x2apic_send_IPI_dest(hw::Cpu& self, uint32_t dest, uint32_t vector, hw::X2apic::DestMode dest_mode,
                                       hw::DeliveryMode mode);

private:
    // __x2apic_send_IPI_shorthand(vector, which): weak_wrmsr_fence(); one
    // native_x2apic_icr_write(__prepare_ICR(which, vector, 0), 0).
    sim::Task<> __x2apic_send_IPI_shorthand(hw::Cpu& self, uint32_t vector, hw::DestShorthand which);
};

}  // namespace ipisim::kernel::irqchip
