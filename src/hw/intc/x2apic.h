// x2APIC (MSR interface), shared by the physical and cluster drivers (docs/mechanisms.md 4.2).
//
// Cost model: weak_wrmsr_fence() (mfence; lfence; IntcSpec.fence, zero on AMD) once per send
// call, then one ICR WRMSR (IntcSpec.icr_write) per message the driver writes. There is no
// wait for ICR idle in x2APIC mode. A single-target send (apic->send_IPI = x2apic_send_IPI)
// is fence + one physical-destination write in both drivers.
#pragma once

#include "hw/intc/interrupt_controller.h"

namespace ipisim::hw {

class X2apic : public InterruptController {
protected:
    sim::Task<> do_send_ipi(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) override;
    // weak_wrmsr_fence(): once per send call.
    sim::Task<> weak_wrmsr_fence(Cpu& sender);
    // One ICR MSR write (native_x2apic_icr_write).
    sim::Task<> icr_write(Cpu& sender);
};

}  // namespace ipisim::hw
