// The xAPIC MMIO physical-mode sends (arch/x86/kernel/apic/ipi.c; docs/mechanisms.md 3.4, 4.3)
// over hw::XapicMmio, per target CPU (__default_send_IPI_dest_field):
//   1. apic_mem_wait_icr_idle(): poll the sender's own ICR until its delivery-status bit
//      (APIC_ICR_BUSY) clears, charged as spin;
//   2. ICR2 write (destination), 3. ICR write (vector, mode), which triggers the send.
// Destination shorthands (default_send_IPI_allbutself / default_send_IPI_all, the physflat
// driver's since v5.4, __default_send_IPI_shortcut): the same wait, then one ICR write with
// the shorthand bits and no ICR2. The per-target senders save IRQs off around their sends
// (local_irq_save in default_send_IPI_single_phys and default_send_IPI_mask_sequence_phys);
// the shorthand's callers (native_send_call_func_ipi's) have them off already.
#include "hw/cpu/cpu.h"
#include "hw/intc/xapic_mmio.h"
#include "kernel/irqchip/irqchip.h"
#include "sim/registry.h"

namespace ipisim::kernel::irqchip {

namespace {

class XapicPhys final : public IrqchipOn<hw::XapicMmio> {
protected:
    // default_send_IPI_mask_sequence_phys(mask, vector): local_irq_save() around the loop.
    sim::Task<> do_send_IPI_mask(hw::Cpu& self, const hw::CpuMask& targets, uint32_t vector,
                                 hw::DeliveryMode mode) override {
        static const uint32_t label = hw::profile_label("default_send_IPI_mask_sequence_phys");
        auto scope = self.function(label);
        self.local_irq_disable();  // nests: the mask is a depth
        for (const hw::CpuId target : targets.to_vector()) {
            co_await __default_send_IPI_dest_field(self, chip().apic_id(target), vector, mode);
        }
        co_await self.local_irq_enable();
    }

    // default_send_IPI_single_phys(cpu, vector): local_irq_save() around the send, so its wait
    // for the ICR takes no interrupt (smp_call_function_single's send comes here with IRQs on).
    sim::Task<> do_send_IPI(hw::Cpu& self, hw::CpuId target, uint32_t vector, hw::DeliveryMode mode) override {
        static const uint32_t label = hw::profile_label("default_send_IPI_single_phys");
        auto scope = self.function(label);
        self.local_irq_disable();
        co_await __default_send_IPI_dest_field(self, chip().apic_id(target), vector, mode);
        co_await self.local_irq_enable();
    }

    [[nodiscard]] bool has_ipi_shorthand() const override { return true; }

    // default_send_IPI_allbutself(vector)
    sim::Task<> do_send_IPI_allbutself(hw::Cpu& self, const hw::CpuMask& /*online*/, uint32_t vector) override {
        static const uint32_t label = hw::profile_label("default_send_IPI_allbutself");
        auto scope = self.function(label);
        co_await __default_send_IPI_shortcut(self, hw::DestShorthand::all_excluding_self, vector);
    }

    // default_send_IPI_all(vector)
    sim::Task<> do_send_IPI_all(hw::Cpu& self, const hw::CpuMask& /*online*/, uint32_t vector) override {
        static const uint32_t label = hw::profile_label("default_send_IPI_all");
        auto scope = self.function(label);
        co_await __default_send_IPI_shortcut(self, hw::DestShorthand::all_including_self, vector);
    }

private:
    // __default_send_IPI_shortcut(shortcut, vector): __xapic_wait_icr_idle(), then
    // native_apic_mem_write(APIC_ICR, __prepare_ICR(shortcut, vector, 0)); ICR2 untouched.
    // NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming): the kernel's name
    sim::Task<> __default_send_IPI_shortcut(hw::Cpu& self, hw::DestShorthand which, uint32_t vector) {
        co_await apic_mem_wait_icr_idle(self);
        co_await chip().write_icr_shorthand(self, which, vector);
    }

    // __default_send_IPI_dest_field(apicid, vector, APIC_DEST_PHYSICAL)
    // NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming): the kernel's name
    sim::Task<> __default_send_IPI_dest_field(hw::Cpu& self, uint32_t apicid, uint32_t vector, hw::DeliveryMode mode) {
        co_await apic_mem_wait_icr_idle(self);
        co_await chip().write_icr2(self, apicid);       // native_apic_mem_write(APIC_ICR2, ...)
        co_await chip().write_icr(self, vector, mode);  // native_apic_mem_write(APIC_ICR, ...)
    }

    // while (native_apic_mem_read(APIC_ICR) & APIC_ICR_BUSY) cpu_relax();
    sim::Task<> apic_mem_wait_icr_idle(hw::Cpu& self) {
        static const uint32_t label = hw::profile_label("apic_mem_wait_icr_idle");
        auto scope = self.function(label, hw::Activity::spin);
        co_await chip().read_icr_until_idle(self);
    }
};

const sim::Registration<Irqchip, XapicPhys> reg(
    "irqchip", "xapic_mmio",
    "default_send_IPI_mask_sequence_phys: per target apic_mem_wait_icr_idle, ICR2 and ICR writes");

}  // namespace

}  // namespace ipisim::kernel::irqchip
