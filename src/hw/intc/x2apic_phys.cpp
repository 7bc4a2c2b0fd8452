// x2APIC physical destination mode (arch/x86/kernel/apic/x2apic_phys.c): one ICR write per
// target CPU, one fence per call.
#include "hw/cpu/cpu.h"
#include "hw/intc/x2apic.h"
#include "sim/registry.h"

namespace ipisim::hw {

namespace {

class X2apicPhys final : public X2apic {
protected:
    // __x2apic_send_IPI_mask(mask, vector, APIC_DEST_ALLINC): weak_wrmsr_fence(), then
    // for_each_cpu: __x2apic_send_IPI_dest(per_cpu(x86_cpu_to_apicid, cpu), vector, PHYSICAL).
    sim::Task<> do_send_ipi_mask(Cpu& sender, const CpuMask& targets, uint32_t vector, DeliveryMode mode) override {
        static const uint32_t label = profile_label("__x2apic_send_IPI_mask");
        auto scope = sender.function(label);
        co_await weak_wrmsr_fence(sender);
        for (const CpuId target : targets.to_vector()) {
            co_await icr_write(sender);
            post(sender, target, vector, mode);
        }
    }
};

const sim::Registration<InterruptController, X2apicPhys> reg(
    "intc", "x2apic_phys", "x2APIC physical mode: fence once, one ICR WRMSR per target CPU, no ICR-idle wait");

}  // namespace

}  // namespace ipisim::hw
