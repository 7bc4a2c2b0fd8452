#include "hw/intc/x2apic.h"

#include "hw/cpu/cpu.h"

namespace ipisim::hw {

sim::Task<> X2apic::weak_wrmsr_fence(Cpu& sender) {
    co_await sender.stall(costs().fence);
}

sim::Task<> X2apic::icr_write(Cpu& sender) {
    ++stats_.register_writes;
    co_await sender.stall(costs().icr_write);
}

// x2apic_send_IPI(cpu, vector): fence, then __x2apic_send_IPI_dest(apicid, vector, PHYSICAL).
sim::Task<> X2apic::do_send_ipi(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) {
    static const uint32_t label = profile_label("x2apic_send_IPI");
    auto scope = sender.function(label);
    co_await weak_wrmsr_fence(sender);
    co_await icr_write(sender);
    post(sender, target, vector, mode);
}

}  // namespace ipisim::hw
