// The kernel's IPI send path into the interrupt controller: on x86 the APIC driver's
// apic->send_IPI / send_IPI_mask (arch/x86/kernel/apic/), on arm64 the GICv3 irq chip's
// ipi_send_mask (drivers/irqchip/irq-gic-v3.c). One driver per machine-file `[intc] kind`,
// registered under that name (kind "irqchip"), writing the registers of the machine's
// hw::InterruptController; the hardware keeps only what the silicon does.
//
//   auto chip = kernel::irqchip::make_irqchip(platform.intc());
//   self.local_irq_disable();
//   co_await chip->send_IPI_mask(self, targets, CALL_FUNCTION_VECTOR);
//   co_await self.local_irq_enable();
//
// Drivers run in the sending CPU's process (normally with IRQs disabled by the caller, as in
// the kernel), under profile scopes named after the kernel functions. Targets are served in
// ascending CPU order, like for_each_cpu(). A new driver is one .cpp deriving IrqchipOn<Hw>
// for its hardware class, registered with sim::Registration<Irqchip, Impl>("irqchip", KIND, ...).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "hw/cpumask.h"
#include "hw/intc/interrupt_controller.h"
#include "sim/task.h"

namespace ipisim::hw {
class Cpu;
}

namespace ipisim::kernel::irqchip {

// The barrier gic_ipi_send_mask() issues before the SGI writes: wmb() (dsb(st), full system)
// until Barry Song's patch (v5.18, seed 002), dsb(ishst) (inner shareable) since.
enum class GicIpiBarrier : uint8_t { wmb, dsb_ishst };

// Kernel-side choices of the IPI drivers (what a kernel version or patch decides); each
// driver uses its part.
struct IrqchipConfig {
    GicIpiBarrier gic_ipi_barrier = GicIpiBarrier::dsb_ishst;
    // x86: the apic_use_ipi_shorthand static key as apic_smt_update() (arch/x86/kernel/apic/
    // ipi.c) sets it: on unless the no_ipi_broadcast=1 boot option ([kernel] no_ipi_broadcast)
    // or not all present CPUs have booted (in the model all have); off before v5.4, whose
    // drivers' send_IPI_allbutself looped over the online CPUs like send_IPI_mask. The key is
    // also off while only one CPU is online (checked at each send).
    bool apic_use_ipi_shorthand = true;
};

struct IrqchipStats {
    uint64_t sends = 0;            // send_IPI / send_IPI_mask / send_call_func_ipi calls
    uint64_t shorthand_sends = 0;  // send_call_func_ipi calls sent as one destination-shorthand IPI
};

class Irqchip {
public:
    virtual ~Irqchip() = default;
    Irqchip() = default;
    Irqchip(const Irqchip&) = delete;
    Irqchip& operator=(const Irqchip&) = delete;

    // Binds the driver to the machine's controller; done by make_irqchip().
    void bind(hw::InterruptController& hw);
    void configure(const IrqchipConfig& c) { config_ = c; }
    [[nodiscard]] const IrqchipConfig& config() const { return config_; }

    // apic->send_IPI_mask / ipi_send_mask: `vector` to every CPU of `targets` (self included if set).
    sim::Task<> send_IPI_mask(hw::Cpu& self, const hw::CpuMask& targets, uint32_t vector,
                              hw::DeliveryMode mode = hw::DeliveryMode::fixed);
    // apic->send_IPI / a one-CPU ipi_send_mask.
    sim::Task<> send_IPI(hw::Cpu& self, hw::CpuId target, uint32_t vector,
                         hw::DeliveryMode mode = hw::DeliveryMode::fixed);

    // native_send_call_func_ipi(mask) (arch/x86/kernel/apic/ipi.c), x86's
    // arch_send_call_function_ipi_mask: with the shorthand key on and mask | self == `online`
    // (cpu_online_mask), ONE destination-shorthand IPI, apic->send_IPI_all when self is in the
    // mask, else apic->send_IPI_allbutself (if more than one CPU is online); otherwise
    // apic->send_IPI_mask(mask). A driver without shorthands (GICv3: arm64's
    // arch_send_call_function_ipi_mask is smp_cross_call -> gic_ipi_send_mask) always takes
    // the mask path.
    sim::Task<> send_call_func_ipi(hw::Cpu& self, const hw::CpuMask& mask, const hw::CpuMask& online, uint32_t vector);

    [[nodiscard]] const IrqchipStats& stats() const { return stats_; }
    [[nodiscard]] hw::InterruptController& hardware() const { return *hw_; }

protected:
    virtual sim::Task<> do_send_IPI_mask(hw::Cpu& self, const hw::CpuMask& targets, uint32_t vector,
                                         hw::DeliveryMode mode) = 0;
    // Default: a one-CPU mask through do_send_IPI_mask.
    virtual sim::Task<> do_send_IPI(hw::Cpu& self, hw::CpuId target, uint32_t vector, hw::DeliveryMode mode);
    // Whether the driver has apic->send_IPI_allbutself / send_IPI_all as destination
    // shorthands (the x86 APIC drivers since v5.4).
    [[nodiscard]] virtual bool has_ipi_shorthand() const { return false; }
    // apic->send_IPI_allbutself / apic->send_IPI_all (fixed mode). Default: the mask path to
    // `online` without / with self, for a driver without shorthands.
    virtual sim::Task<> do_send_IPI_allbutself(hw::Cpu& self, const hw::CpuMask& online, uint32_t vector);
    virtual sim::Task<> do_send_IPI_all(hw::Cpu& self, const hw::CpuMask& online, uint32_t vector);
    // Takes the driver's own view of the hardware; throws std::logic_error for the wrong kind.
    virtual void on_bind(hw::InterruptController& hw) = 0;

private:
    hw::InterruptController* hw_ = nullptr;
    IrqchipConfig config_;
    IrqchipStats stats_;
    hw::CpuMask scratch_;  // send_call_func_ipi: mask | self
};

// A driver for hardware class Hw (hw::X2apic, hw::XapicMmio, hw::Gicv3).
template <class Hw>
class IrqchipOn : public Irqchip {
protected:
    [[nodiscard]] Hw& chip() const { return *chip_; }

private:
    void on_bind(hw::InterruptController& hw) final {
        chip_ = dynamic_cast<Hw*>(&hw);
        if (chip_ == nullptr) {
            throw std::logic_error("irqchip driver for \"" + hw.spec().intc.kind + "\" bound to other hardware");
        }
    }
    Hw* chip_ = nullptr;
};

// The driver registered under the controller's kind, bound to it. std::invalid_argument when
// no driver is registered for the kind (naming the registered drivers).
std::unique_ptr<Irqchip> make_irqchip(hw::InterruptController& hw, const IrqchipConfig& config = {});

}  // namespace ipisim::kernel::irqchip
