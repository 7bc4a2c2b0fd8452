// Arm GICv3 SGIs (drivers/irqchip/irq-gic-v3.c, gic_ipi_send_mask; docs/mechanisms.md 4.5).
//
// Cost model per send call: the store barrier (IntcSpec.dsb_ishst, or IntcSpec.dsb_st for the
// pre-2022 wmb()), then one ICC_SGI1R_EL1 write (IntcSpec.sgi1r_write) per run of consecutive
// targets (in CPU order) sharing MPIDR & ~0xF (Aff3.Aff2.Aff1 and RS), covering up to 16 CPUs,
// then one isb (IntcSpec.isb). No busy-wait. The messages of a group enter the fabric when its
// SGI1R write retires.
#pragma once

#include <string_view>

#include "hw/intc/interrupt_controller.h"

namespace ipisim::hw {

// The barrier before the SGI writes: dsb_st = wmb() (full system, before Barry Song's 2022
// patch), dsb_ishst = dsb(ishst) (inner shareable, current kernels).
enum class GicBarrier : uint8_t { dsb_st, dsb_ishst };
std::string_view to_string(GicBarrier b);
// "dsb_st" | "dsb_ishst"; std::invalid_argument otherwise.
GicBarrier parse_gic_barrier(std::string_view name);

class Gicv3 final : public InterruptController {
public:
    void set_barrier(GicBarrier b) { barrier_ = b; }
    [[nodiscard]] GicBarrier barrier() const { return barrier_; }

protected:
    sim::Task<> do_send_ipi_mask(Cpu& sender, const CpuMask& targets, uint32_t vector, DeliveryMode mode) override;

private:
    GicBarrier barrier_ = GicBarrier::dsb_ishst;
};

// Sets the barrier of a GICv3 controller; std::invalid_argument for any other kind.
void set_gic_barrier(InterruptController& intc, GicBarrier b);

}  // namespace ipisim::hw
