#include "kernel/irqchip/irqchip.h"

#include <fmt/format.h>

#include "hw/cpu/cpu.h"
#include "sim/registry.h"

namespace ipisim::kernel::irqchip {

void Irqchip::bind(hw::InterruptController& hw) {
    on_bind(hw);
    hw_ = &hw;
}

sim::Task<> Irqchip::send_IPI_mask(hw::Cpu& self, const hw::CpuMask& targets, uint32_t vector, hw::DeliveryMode mode) {
    if (targets.nr_cpus() != hw_->nr_cpus()) {
        throw std::invalid_argument(
            fmt::format("send_IPI_mask: a {}-CPU mask on a {}-CPU machine", targets.nr_cpus(), hw_->nr_cpus()));
    }
    ++stats_.sends;
    return do_send_IPI_mask(self, targets, vector, mode);
}

sim::Task<> Irqchip::send_IPI(hw::Cpu& self, hw::CpuId target, uint32_t vector, hw::DeliveryMode mode) {
    if (target >= hw_->nr_cpus()) {
        throw std::out_of_range(fmt::format("send_IPI: cpu{} on a {}-CPU machine", target, hw_->nr_cpus()));
    }
    ++stats_.sends;
    return do_send_IPI(self, target, vector, mode);
}

sim::Task<> Irqchip::send_call_func_ipi(hw::Cpu& self, const hw::CpuMask& mask, const hw::CpuMask& online,
                                        uint32_t vector) {
    if (mask.nr_cpus() != hw_->nr_cpus() || online.nr_cpus() != hw_->nr_cpus()) {
        throw std::invalid_argument(
            fmt::format("send_call_func_ipi: a {}-CPU mask on a {}-CPU machine", mask.nr_cpus(), hw_->nr_cpus()));
    }
    ++stats_.sends;
    // static_branch_likely(&apic_use_ipi_shorthand); apic_smt_update() turns the key off
    // while one CPU is online.
    if (has_ipi_shorthand() && config_.apic_use_ipi_shorthand && online.weight() > 1) {
        scratch_ = mask;
        scratch_.set(self.id());
        if (scratch_ == online) {  // cpumask_or_equal(mask, cpumask_of(cpu), cpu_online_mask)
            ++stats_.shorthand_sends;
            if (mask.test(self.id())) return do_send_IPI_all(self, online, vector);
            return do_send_IPI_allbutself(self, online, vector);
        }
    }
    return do_send_IPI_mask(self, mask, vector, hw::DeliveryMode::fixed);
}

// A coroutine: the mask lives in its frame while the driver iterates it.
sim::Task<> Irqchip::do_send_IPI_allbutself(hw::Cpu& self, const hw::CpuMask& online, uint32_t vector) {
    hw::CpuMask others = online;
    others.clear(self.id());
    co_await do_send_IPI_mask(self, others, vector, hw::DeliveryMode::fixed);
}

sim::Task<> Irqchip::do_send_IPI_all(hw::Cpu& self, const hw::CpuMask& online, uint32_t vector) {
    return do_send_IPI_mask(self, online, vector, hw::DeliveryMode::fixed);
}

sim::Task<> Irqchip::do_send_IPI(hw::Cpu& self, hw::CpuId target, uint32_t vector, hw::DeliveryMode mode) {
    const hw::CpuMask one = hw::CpuMask::of(hw_->nr_cpus(), {target});
    co_await do_send_IPI_mask(self, one, vector, mode);
}

std::unique_ptr<Irqchip> make_irqchip(hw::InterruptController& hw, const IrqchipConfig& config) {
    const auto& registry = sim::Registry<Irqchip>::instance();
    std::unique_ptr<Irqchip> chip = registry.create(hw.spec().intc.kind);
    if (chip == nullptr) {
        throw std::invalid_argument(
            fmt::format("no kernel irqchip driver for interrupt controller \"{}\" (drivers: {})", hw.spec().intc.kind,
                        registry.names()));
    }
    chip->bind(hw);
    chip->configure(config);
    return chip;
}

}  // namespace ipisim::kernel::irqchip
