// Arm GICv3 SGIs (docs/mechanisms.md 4.5): a CPU interface system register, ICC_SGI1R_EL1,
// whose one write sends an SGI to up to 16 CPUs of one affinity group: the CPUs whose MPIDR
// matches Aff3.Aff2.Aff1 and RS (= Aff0 >> 4) and whose bit Aff0[3:0] is set in the 16-bit
// target list. No delivery-status wait.
//
// Cost model: one SGI1R write costs `sgi1r_write`; the barriers software issues around it
// cost `dsb_st` (DSB ST, full system: the pre-2022 wmb()), `dsb_ishst` (DSB ISHST, inner
// shareable) and `isb`. The messages of a write enter the fabric when it retires.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "config/schema.h"
#include "hw/intc/interrupt_controller.h"

namespace ipisim::hw {

struct Gicv3Params {
    sim::Picos sgi1r_write;  // one ICC_SGI1R_EL1 write (one <=16-CPU group)
    sim::Picos dsb_st;       // DSB ST: full-system store barrier
    sim::Picos dsb_ishst;    // DSB ISHST: inner-shareable store barrier
    sim::Picos isb;          // ISB: context synchronization after the SGI1R writes
};
const config::Schema<Gicv3Params>& gicv3_params_schema();

class Gicv3 final : public InterruptController {
public:
    [[nodiscard]] uint64_t mpidr(CpuId c) const { return topology().hw_id(c); }
    // MPIDR_TO_SGI_CLUSTER_ID: the MPIDR with Aff0's low 4 bits (the target-list bit) cleared.
    [[nodiscard]] static uint64_t sgi_cluster_id(uint64_t mpidr) { return mpidr & ~uint64_t{0xF}; }

    // One ICC_SGI1R_EL1 write: SGI `vector` to the CPUs of group `cluster_id` whose bit
    // (MPIDR & 0xF) is set in `target_list`, in CPU order, when the write retires.
    sim::Task<> write_sgi1r(Cpu& sender, uint64_t cluster_id, uint16_t target_list, uint32_t vector,
                            DeliveryMode mode = DeliveryMode::fixed);
    sim::Task<> dsb_st(Cpu& cpu);
    sim::Task<> dsb_ishst(Cpu& cpu);
    sim::Task<> isb(Cpu& cpu);

private:
    void on_attach() override;
    [[nodiscard]] const Gicv3Params& params() const { return *params_; }

    const Gicv3Params* params_ = nullptr;
    std::map<uint64_t, std::vector<CpuId>> groups_;  // SGI cluster id -> its CPUs, ascending
};

}  // namespace ipisim::hw
