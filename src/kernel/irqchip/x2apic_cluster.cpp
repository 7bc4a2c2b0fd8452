// x2APIC cluster (logical) destination mode (arch/x86/kernel/apic/x2apic_cluster.c): one ICR
// write per 16-CPU cluster (cluster = APIC id >> 4) among the targets, one fence per call. The
// write carries a logical destination (cluster << 16 | bitmap of APIC id & 0xF), so the sender
// pays per cluster, not per target; the hardware delivers one message per target CPU.
#include <vector>

#include "hw/cpu/cpu.h"
#include "kernel/irqchip/x2apic.h"
#include "sim/registry.h"

namespace ipisim::kernel::irqchip {

namespace {

class X2apicCluster final : public X2apicDriver {
protected:
    // __x2apic_send_IPI_mask (cluster): weak_wrmsr_fence(); tmpmsk = mask; for_each_cpu in
    // tmpmsk: OR the logical ids (x86_cpu_to_logical_apicid) of tmpmsk's CPUs in this CPU's
    // cluster_masks, one __x2apic_send_IPI_dest(dest, vector, APIC_DEST_LOGICAL), then
    // cpumask_andnot(tmpmsk, tmpmsk, cluster).
    sim::Task<> do_send_IPI_mask(hw::Cpu& self, const hw::CpuMask& targets, uint32_t vector,
                                 hw::DeliveryMode mode) override {
        static const uint32_t label = hw::profile_label("__x2apic_send_IPI_mask");
        auto scope = self.function(label);
        co_await weak_wrmsr_fence(self);
        std::vector<hw::CpuId> tmpmsk = targets.to_vector();
        std::vector<hw::CpuId> rest;
        while (!tmpmsk.empty()) {
            const uint32_t cluster = chip().apic_id(tmpmsk.front()) >> 4;
            uint32_t dest = 0;
            rest.clear();
            for (const hw::CpuId c : tmpmsk) {
                const uint32_t id = chip().apic_id(c);
                if ((id >> 4) == cluster) {
                    dest |= hw::X2apic::logical_id(id);
                } else {
                    rest.push_back(c);
                }
            }
            tmpmsk.swap(rest);
            co_await __x2apic_send_IPI_dest(self, dest, vector, hw::X2apic::DestMode::logical, mode);
        }
    }
};

const sim::Registration<Irqchip, X2apicCluster> reg(
    "irqchip", "x2apic_cluster", "__x2apic_send_IPI_mask (cluster): one logical ICR write per 16-CPU cluster");

}  // namespace

}  // namespace ipisim::kernel::irqchip
