// x2APIC physical destination mode (arch/x86/kernel/apic/x2apic_phys.c): one ICR write per
// target CPU, one fence per call.
#include "hw/cpu/cpu.h"
#include "kernel/irqchip/x2apic.h"
#include "sim/registry.h"

namespace ipisim::kernel::irqchip {

namespace {

class X2apicPhys final : public X2apicDriver {
protected:
    // __x2apic_send_IPI_mask(mask, vector, APIC_DEST_ALLINC): weak_wrmsr_fence(), then
    // for_each_cpu: __x2apic_send_IPI_dest(per_cpu(x86_cpu_to_apicid, cpu), vector, PHYSICAL).
    sim::Task<> do_send_IPI_mask(hw::Cpu& self, const hw::CpuMask& targets, uint32_t vector,
                                 hw::DeliveryMode mode) override {
        static const uint32_t label = hw::profile_label("__x2apic_send_IPI_mask");
        auto scope = self.function(label);
        co_await weak_wrmsr_fence(self);
        for (const hw::CpuId target : targets.to_vector()) {
            co_await __x2apic_send_IPI_dest(self, chip().apic_id(target), vector, hw::X2apic::DestMode::physical, mode);
        }
    }
};

const sim::Registration<Irqchip, X2apicPhys> reg("irqchip", "x2apic_phys",
                                                 "__x2apic_send_IPI_mask (physical): one ICR write per target CPU");

}  // namespace

}  // namespace ipisim::kernel::irqchip
