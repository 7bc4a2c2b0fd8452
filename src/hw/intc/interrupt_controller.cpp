#include "hw/intc/interrupt_controller.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "hw/cpu/cpu.h"
#include "hw/intc/intc_type.h"

namespace ipisim::hw {

void InterruptController::attach(sim::Engine& eng, const MachineSpec& spec, std::vector<Cpu*> cpus) {
    eng_ = &eng;
    spec_ = &spec;
    software_enabled_.assign(spec.topology.nr_cpus(), 1);
    fabric_ = std::make_unique<DeliveryFabric>(eng, spec, std::move(cpus));
    fabric_->set_accept_hook(
        [this](CpuId sender, CpuId target, DeliveryMode mode) { on_accepted(sender, target, mode); });
    on_attach();
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

sim::Picos InterruptController::post_shorthand(const Cpu& sender, DestShorthand which, uint32_t vector,
                                               DeliveryMode mode) {
    shorthand_targets_.clear();
    for (CpuId c = 0; c < nr_cpus(); ++c) {
        if (software_enabled_[c] == 0) continue;  // the message reaches it; it does not accept it
        if (c != sender.id() || which == DestShorthand::all_including_self) shorthand_targets_.push_back(c);
    }
    if (shorthand_targets_.empty()) return sim::Picos::zero();
    return post_group(sender, shorthand_targets_, vector, mode);
}

std::unique_ptr<InterruptController> make_interrupt_controller(const MachineSpec& spec, sim::Engine& eng,
                                                               std::vector<Cpu*> cpus) {
    const IntcType* type = find_intc_type(spec.intc.kind);
    if (type == nullptr) {
        throw std::invalid_argument(fmt::format("machine \"{}\": unknown interrupt controller \"{}\" (registered: {})",
                                                spec.name, spec.intc.kind, intc_type_names()));
    }
    std::unique_ptr<InterruptController> intc = type->create();
    intc->attach(eng, spec, std::move(cpus));
    return intc;
}

}  // namespace ipisim::hw
