// write_machine(): the machine file of a spec, every section through its schema (so exactly the
// applicable keys are written, costs with their recorded provenance).
#include <fmt/format.h>

#include "hw/intc/intc_type.h"
#include "hw/machine.h"
#include "hw/machine_schema.h"

namespace ipisim::hw {

toml::table write_machine(const MachineSpec& spec) {
    const config::CostRecord* costs = &spec.costs;
    const config::Conditions conds = machine_conditions(spec.arch, spec.topology);
    toml::table out;
    machine_root_schema().write(spec, out, conds, costs);

    toml::table topology;
    topology_schema().write(spec.topology.spec(), topology);
    out.insert_or_assign("topology", std::move(topology));

    toml::table coherence;
    coherence_schema().write(coherence_keys(spec.coherence), coherence, conds, costs, "coherence");
    out.insert_or_assign("coherence", std::move(coherence));

    toml::table cpu;
    cpu_schema().write(spec.cpu, cpu, conds, costs, "cpu");
    out.insert_or_assign("cpu", std::move(cpu));

    toml::array idle;
    for (size_t i = 0; i < spec.idle.size(); ++i) {
        toml::table state;
        idle_schema().write(spec.idle[i], state, conds, costs, fmt::format("idle[{}]", i));
        idle.push_back(std::move(state));
    }
    out.insert_or_assign("idle", std::move(idle));

    toml::table intc;
    intc_schema().write(IntcKeys{spec.intc.kind}, intc, conds, costs, "intc");
    const IntcType* type = find_intc_type(spec.intc.kind);
    if (type == nullptr) {
        throw std::invalid_argument(fmt::format("machine \"{}\": unknown interrupt controller \"{}\" (registered: {})",
                                                spec.name, spec.intc.kind, intc_type_names()));
    }
    toml::table params;
    type->write_params(spec.intc.params, params, costs);
    intc.insert_or_assign("params", std::move(params));
    toml::table fabric;
    fabric_schema().write(fabric_keys(spec.intc), fabric, conds, costs, "intc.fabric");
    intc.insert_or_assign("fabric", std::move(fabric));
    out.insert_or_assign("intc", std::move(intc));

    toml::table tlb;
    tlb_schema().write(spec.tlb, tlb, conds, costs, "tlb");
    out.insert_or_assign("tlb", std::move(tlb));
    return out;
}

}  // namespace ipisim::hw
