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
};

struct IrqchipStats {
    uint64_t sends = 0;  // send_IPI / send_IPI_mask calls
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

    [[nodiscard]] const IrqchipStats& stats() const { return stats_; }
    [[nodiscard]] hw::InterruptController& hardware() const { return *hw_; }

protected:
    virtual sim::Task<> do_send_IPI_mask(hw::Cpu& self, const hw::CpuMask& targets, uint32_t vector,
                                         hw::DeliveryMode mode) = 0;
    // Default: a one-CPU mask through do_send_IPI_mask.
    virtual sim::Task<> do_send_IPI(hw::Cpu& self, hw::CpuId target, uint32_t vector, hw::DeliveryMode mode);
    // Takes the driver's own view of the hardware; throws std::logic_error for the wrong kind.
    virtual void on_bind(hw::InterruptController& hw) = 0;

private:
    hw::InterruptController* hw_ = nullptr;
    IrqchipConfig config_;
    IrqchipStats stats_;
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
