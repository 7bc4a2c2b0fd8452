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
    fabric_ = std::make_unique<DeliveryFabric>(eng, spec, std::move(cpus));
    on_attach();
}

void InterruptController::post(const Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) {
    fabric_->send(sender.id(), target, vector, mode);
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
