#include "hw/intc/interrupt_controller.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "hw/cpu/cpu.h"
#include "sim/registry.h"

namespace ipisim::hw {

void InterruptController::attach(sim::Engine& eng, const MachineSpec& spec, std::vector<Cpu*> cpus) {
    eng_ = &eng;
    spec_ = &spec;
    fabric_ = std::make_unique<DeliveryFabric>(eng, spec, std::move(cpus));
    fabric_->set_accept_hook(
        [this](CpuId sender, CpuId target, DeliveryMode mode) { on_accepted(sender, target, mode); });
    on_attach();
}

void InterruptController::check_attached() const {
    if (fabric_ == nullptr) throw std::logic_error("interrupt controller used before attach()");
}

sim::Task<> InterruptController::send_ipi_mask(Cpu& sender, const CpuMask& targets, uint32_t vector,
                                               DeliveryMode mode) {
    check_attached();
    if (targets.nr_cpus() != topology().nr_cpus()) {
        throw std::invalid_argument(
            fmt::format("send_ipi_mask: a {}-CPU mask on a {}-CPU machine", targets.nr_cpus(), topology().nr_cpus()));
    }
    ++stats_.sends;
    return do_send_ipi_mask(sender, targets, vector, mode);
}

sim::Task<> InterruptController::send_ipi(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) {
    check_attached();
    if (target >= topology().nr_cpus()) {
        throw std::out_of_range(fmt::format("send_ipi: cpu{} on a {}-CPU machine", target, topology().nr_cpus()));
    }
    ++stats_.sends;
    return do_send_ipi(sender, target, vector, mode);
}

sim::Task<> InterruptController::do_send_ipi(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) {
    const CpuMask one = CpuMask::of(topology().nr_cpus(), {target});
    co_await do_send_ipi_mask(sender, one, vector, mode);
}

sim::Picos InterruptController::post(const Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) {
    return fabric_->send(sender.id(), target, vector, mode);
}

sim::Picos InterruptController::post_group(const Cpu& sender, const std::vector<CpuId>& targets, uint32_t vector,
                                           DeliveryMode mode) {
    const sim::Picos wait = fabric_->route(sender.id());
    for (const CpuId target : targets) fabric_->send_routed(sender.id(), target, vector, mode, wait);
    return wait;
}

std::unique_ptr<InterruptController> make_interrupt_controller(const MachineSpec& spec, sim::Engine& eng,
                                                               std::vector<Cpu*> cpus) {
    const auto& registry = sim::Registry<InterruptController>::instance();
    const std::string kind(to_string(spec.intc.kind));
    std::unique_ptr<InterruptController> intc = registry.create(kind);
    if (intc == nullptr) {
        throw std::invalid_argument(fmt::format("machine \"{}\": unknown interrupt controller \"{}\" (registered: {})",
                                                spec.name, kind, registry.names()));
    }
    intc->attach(eng, spec, std::move(cpus));
    return intc;
}

}  // namespace ipisim::hw
