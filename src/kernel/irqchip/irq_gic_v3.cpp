// The GICv3 IPI send (drivers/irqchip/irq-gic-v3.c, gic_ipi_send_mask; docs/mechanisms.md 4.5)
// over hw::Gicv3: the store barrier once, one ICC_SGI1R_EL1 write per run of consecutive
// targets (in CPU order) sharing MPIDR & ~0xF (Aff3.Aff2.Aff1 and RS), covering up to 16
// CPUs, then one isb. No busy-wait. The barrier is the kernel's choice (IrqchipConfig):
// wmb() = dsb(st) before Barry Song's 2022 patch (seed 002), dsb(ishst) since.
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/intc/gicv3.h"
#include "kernel/irqchip/irqchip.h"
#include "sim/registry.h"

namespace ipisim::kernel::irqchip {

namespace {

class GicV3 final : public IrqchipOn<hw::Gicv3> {
protected:
    // gic_ipi_send_mask(d, mask): barrier; for_each_cpu: cluster_id = MPIDR_TO_SGI_CLUSTER_ID,
    // tlist = gic_compute_target_list(&cpu, mask, cluster_id), gic_send_sgi(cluster_id, tlist,
    // irq); then isb().
    sim::Task<> do_send_IPI_mask(hw::Cpu& self, const hw::CpuMask& targets, uint32_t vector,
                                 hw::DeliveryMode mode) override {
        static const uint32_t label = hw::profile_label("gic_ipi_send_mask");
        auto scope = self.function(label);
        if (config().gic_ipi_barrier == GicIpiBarrier::wmb) {
            co_await chip().dsb_st(self);
        } else {
            co_await chip().dsb_ishst(self);
        }
        const std::vector<hw::CpuId> cpus = targets.to_vector();
        for (size_t i = 0; i < cpus.size();) {
            const uint64_t cluster_id = hw::Gicv3::sgi_cluster_id(chip().mpidr(cpus[i]));
            const uint16_t tlist = gic_compute_target_list(cpus, i, cluster_id);
            co_await chip().write_sgi1r(self, cluster_id, tlist, vector, mode);  // gic_send_sgi
        }
        co_await chip().isb(self);
    }

private:
    // The consecutive CPUs from cpus[i] in cluster_id: bit (MPIDR & 0xF) each; advances i.
    uint16_t gic_compute_target_list(const std::vector<hw::CpuId>& cpus, size_t& i, uint64_t cluster_id) const {
        uint16_t tlist = 0;
        for (; i < cpus.size(); ++i) {
            const uint64_t mpidr = chip().mpidr(cpus[i]);
            if (hw::Gicv3::sgi_cluster_id(mpidr) != cluster_id) break;
            tlist = static_cast<uint16_t>(tlist | (1U << (mpidr & 0xF)));
        }
        return tlist;
    }
};

const sim::Registration<Irqchip, GicV3> reg("irqchip", "gicv3",
                                            "gic_ipi_send_mask: barrier, one ICC_SGI1R_EL1 write per group, isb");

}  // namespace

}  // namespace ipisim::kernel::irqchip
