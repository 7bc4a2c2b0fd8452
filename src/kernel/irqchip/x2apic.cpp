#include "kernel/irqchip/x2apic.h"

#include "hw/cpu/cpu.h"

namespace ipisim::kernel::irqchip {

// Thin wrappers return the hardware's task (no frame of their own on the hot path).
sim::Task<> X2apicDriver::weak_wrmsr_fence(hw::Cpu& self) {
    return chip().wrmsr_fence(self);
}

sim::Task<> X2apicDriver::__x2apic_send_IPI_dest(hw::Cpu& self, uint32_t dest, uint32_t vector,
                                                 hw::X2apic::DestMode dest_mode, hw::DeliveryMode mode) {
    return chip().write_icr(self, dest, dest_mode, vector, mode);
}

// x2apic_send_IPI(cpu, vector): dest = per_cpu(x86_cpu_to_apicid, cpu); weak_wrmsr_fence();
// native_x2apic_icr_write(__prepare_ICR(0, vector, APIC_DEST_PHYSICAL), dest).
sim::Task<> X2apicDriver::do_send_IPI(hw::Cpu& self, hw::CpuId target, uint32_t vector, hw::DeliveryMode mode) {
    static const uint32_t label = hw::profile_label("x2apic_send_IPI");
    auto scope = self.function(label);
    co_await weak_wrmsr_fence(self);
    co_await __x2apic_send_IPI_dest(self, chip().apic_id(target), vector, hw::X2apic::DestMode::physical, mode);
}

sim::Task<> X2apicDriver::__x2apic_send_IPI_shorthand(hw::Cpu& self, uint32_t vector, hw::DestShorthand which) {
    co_await weak_wrmsr_fence(self);
    co_await chip().write_icr_shorthand(self, which, vector);
}

sim::Task<> X2apicDriver::do_send_IPI_allbutself(hw::Cpu& self, const hw::CpuMask& /*online*/, uint32_t vector) {
    static const uint32_t label = hw::profile_label("x2apic_send_IPI_allbutself");
    auto scope = self.function(label);
    co_await __x2apic_send_IPI_shorthand(self, vector, hw::DestShorthand::all_excluding_self);
}

sim::Task<> X2apicDriver::do_send_IPI_all(hw::Cpu& self, const hw::CpuMask& /*online*/, uint32_t vector) {
    static const uint32_t label = hw::profile_label("x2apic_send_IPI_all");
    auto scope = self.function(label);
    co_await __x2apic_send_IPI_shorthand(self, vector, hw::DestShorthand::all_including_self);
}

}  // namespace ipisim::kernel::irqchip
