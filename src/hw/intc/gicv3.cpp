#include "hw/intc/gicv3.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "hw/cpu/cpu.h"
#include "sim/registry.h"

namespace ipisim::hw {

namespace {

// MPIDR_TO_SGI_CLUSTER_ID: the MPIDR with Aff0's low 4 bits (the target-list bit) cleared.
uint64_t sgi_cluster_id(const Topology& topo, CpuId c) {
    return topo.hw_id(c) & ~uint64_t{0xF};
}

const sim::Registration<InterruptController, Gicv3> reg(
    "intc", "gicv3", "Arm GICv3: dsb(ishst) or dsb(st) once, one ICC_SGI1R_EL1 write per <=16-CPU affinity group, isb");

}  // namespace

std::string_view to_string(GicBarrier b) {
    return b == GicBarrier::dsb_st ? "dsb_st" : "dsb_ishst";
}

GicBarrier parse_gic_barrier(std::string_view name) {
    if (name == "dsb_st") return GicBarrier::dsb_st;
    if (name == "dsb_ishst") return GicBarrier::dsb_ishst;
    throw std::invalid_argument(fmt::format("unknown GICv3 barrier \"{}\" (dsb_st, dsb_ishst)", name));
}

void set_gic_barrier(InterruptController& intc, GicBarrier b) {
    auto* gic = dynamic_cast<Gicv3*>(&intc);
    if (gic == nullptr) {
        throw std::invalid_argument(fmt::format("the GICv3 barrier does not apply to interrupt controller \"{}\"",
                                                to_string(intc.spec().intc.kind)));
    }
    gic->set_barrier(b);
}

// gic_ipi_send_mask(d, mask): barrier; for_each_cpu: cluster_id = MPIDR_TO_SGI_CLUSTER_ID,
// tlist = gic_compute_target_list(&cpu, mask, cluster_id) (consecutive mask CPUs of that
// cluster), gic_send_sgi(cluster_id, tlist, irq); then isb().
sim::Task<> Gicv3::do_send_ipi_mask(Cpu& sender, const CpuMask& targets, uint32_t vector, DeliveryMode mode) {
    static const uint32_t label = profile_label("gic_ipi_send_mask");
    auto scope = sender.function(label);
    co_await sender.stall(barrier_ == GicBarrier::dsb_st ? costs().dsb_st : costs().dsb_ishst);
    const std::vector<CpuId> cpus = targets.to_vector();
    for (size_t i = 0; i < cpus.size();) {
        const uint64_t cluster = sgi_cluster_id(topology(), cpus[i]);
        size_t end = i + 1;
        while (end < cpus.size() && sgi_cluster_id(topology(), cpus[end]) == cluster) ++end;
        ++stats_.register_writes;
        co_await sender.stall(costs().sgi1r_write);  // gic_send_sgi: one ICC_SGI1R_EL1 write
        post_group(sender,
                   std::vector<CpuId>(cpus.begin() + static_cast<std::ptrdiff_t>(i),
                                      cpus.begin() + static_cast<std::ptrdiff_t>(end)),
                   vector, mode);
        i = end;
    }
    co_await sender.stall(costs().isb);
}

}  // namespace ipisim::hw
