#include "hw/intc/gicv3.h"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/cpu/cpu.h"
#include "hw/intc/intc_type.h"

namespace ipisim::hw {

const config::Schema<Gicv3Params>& gicv3_params_schema() {
    static const auto s = [] {
        config::Schema<Gicv3Params> p("machine.intc.params", "Arm GICv3 (system-register CPU interface)");
        p.param("sgi1r_write", &Gicv3Params::sgi1r_write, "one ICC_SGI1R_EL1 write (one <=16-CPU affinity group)")
            .cost();
        p.param("dsb_st", &Gicv3Params::dsb_st, "DSB ST, full-system store barrier (the pre-2022 wmb())").cost();
        p.param("dsb_ishst", &Gicv3Params::dsb_ishst, "DSB ISHST, inner-shareable store barrier").cost();
        p.param("isb", &Gicv3Params::isb, "ISB after the SGI1R writes").cost();
        return p;
    }();
    return s;
}

void Gicv3::on_attach() {
    params_ = &intc_params<Gicv3Params>(spec());
    groups_.clear();
    for (CpuId c = 0; c < nr_cpus(); ++c) groups_[sgi_cluster_id(mpidr(c))].push_back(c);
}

sim::Task<> Gicv3::write_sgi1r(Cpu& sender, uint64_t cluster_id, uint16_t target_list, uint32_t vector,
                               DeliveryMode mode) {
    auto it = groups_.find(cluster_id);
    if (it == groups_.end()) {
        throw std::invalid_argument(fmt::format("ICC_SGI1R_EL1 write to unknown affinity group {:#x}", cluster_id));
    }
    ++stats_.register_writes;
    co_await sender.stall(params().sgi1r_write);
    group_.clear();
    for (const CpuId c : it->second) {
        if ((target_list & (1U << (mpidr(c) & 0xF))) != 0) group_.push_back(c);
    }
    if (!group_.empty()) post_group(sender, group_, vector, mode);  // one message for the router
}

// A DSB completes when the stores before it have (Arm ARM, "Data Synchronization Barrier"): it waits for the store
// buffer to drain (hw/coherence/store_buffer.h), then costs its own latency.
sim::Task<> Gicv3::dsb_st(Cpu& cpu) {
    co_await cpu.drain_stores();
    co_await cpu.stall(params().dsb_st);
}

sim::Task<> Gicv3::dsb_ishst(Cpu& cpu) {
    co_await cpu.drain_stores();
    co_await cpu.stall(params().dsb_ishst);
}

sim::Task<> Gicv3::isb(Cpu& cpu) {
    return cpu.stall(params().isb);
}

namespace {

const IntcRegistration<Gicv3, Gicv3Params> reg(
    "gicv3", "Arm GICv3: dsb(ishst) or dsb(st) once, one ICC_SGI1R_EL1 write per <=16-CPU affinity group, isb",
    {Arch::arm64}, gicv3_params_schema);

}  // namespace

}  // namespace ipisim::hw
