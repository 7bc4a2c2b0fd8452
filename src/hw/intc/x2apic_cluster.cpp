// x2APIC cluster (logical) destination mode (arch/x86/kernel/apic/x2apic_cluster.c): one ICR
// write per 16-CPU cluster (cluster = APIC id >> 4) among the targets, one fence per call.
//
// The write carries a logical destination (cluster << 16 | bitmap of APIC id & 0xF); the
// fabric carries one message per target CPU, all entering at that write: every target has its
// own distance and its own acceptance, and the sender pays per cluster, not per target. The
// package's interrupt router takes the write as one message (DeliveryFabric::route).
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/intc/x2apic.h"
#include "sim/registry.h"

namespace ipisim::hw {

namespace {

uint64_t cluster_of(const Topology& topo, CpuId c) {
    return topo.hw_id(c) >> 4;
}

class X2apicCluster final : public X2apic {
protected:
    // __x2apic_send_IPI_mask (cluster): weak_wrmsr_fence(); tmpmsk = mask; for_each_cpu in
    // tmpmsk: OR the logical ids of tmpmsk's CPUs in this CPU's cluster, one
    // __x2apic_send_IPI_dest(dest, vector, APIC_DEST_LOGICAL), remove the cluster from tmpmsk.
    sim::Task<> do_send_ipi_mask(Cpu& sender, const CpuMask& targets, uint32_t vector, DeliveryMode mode) override {
        static const uint32_t label = profile_label("__x2apic_send_IPI_mask");
        auto scope = sender.function(label);
        co_await weak_wrmsr_fence(sender);
        std::vector<CpuId> remaining = targets.to_vector();
        std::vector<CpuId> cluster;
        std::vector<CpuId> rest;
        while (!remaining.empty()) {
            const uint64_t id = cluster_of(topology(), remaining.front());
            cluster.clear();
            rest.clear();
            for (const CpuId c : remaining) (cluster_of(topology(), c) == id ? cluster : rest).push_back(c);
            remaining.swap(rest);
            co_await icr_write(sender);
            post_group(sender, cluster, vector, mode);
        }
    }
};

const sim::Registration<InterruptController, X2apicCluster> reg(
    "intc", "x2apic_cluster",
    "x2APIC cluster mode: fence once, one ICR WRMSR per 16-CPU cluster (APIC id >> 4), no ICR-idle wait");

}  // namespace

}  // namespace ipisim::hw
