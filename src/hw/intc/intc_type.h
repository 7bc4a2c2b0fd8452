// The interrupt controllers a machine file may name (`[intc] kind`). Each controller registers
// once, in its own .cpp, with the architectures it exists on, the schema of its own
// [intc.params] and its hardware model; this registry is the only list of kinds. The machine
// loader asks it for the kind, the arch check, the parameters and a topology check.
//
//   struct MyParams { sim::Picos doorbell; };
//   const config::Schema<MyParams>& my_schema();   // .param("doorbell", ...).cost()
//   const hw::IntcRegistration<MyIntc, MyParams> reg("my_intc", "what it is", {Arch::x86}, my_schema);
//
// The hardware reads its parameters back with intc_params<MyParams>(spec).
#pragma once

#include <toml++/toml.h>

#include <any>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.h"
#include "hw/machine.h"
#include "sim/registry.h"

namespace ipisim::hw {

class InterruptController;

struct IntcType {
    std::string name;
    std::string description;
    std::vector<Arch> archs;
    // Reads [intc.params] strictly (finish() included); costs go to `costs`.
    std::function<std::any(config::Table, config::CostRecord*)> read_params;
    // Writes the parameters (with the provenance of `costs`, keys "intc.params.KEY").
    std::function<void(const std::any&, toml::table&, const config::CostRecord*)> write_params;
    std::function<config::SchemaInfo()> params_info;
    // What the controller cannot address on a topology ("" = fine), e.g. xAPIC's 8-bit ids.
    std::function<std::string(const Topology&)> topology_problem;
    std::function<std::unique_ptr<InterruptController>()> create;

    [[nodiscard]] bool exists_on(Arch a) const;
};

// nullptr when no controller of that name is registered.
const IntcType* find_intc_type(std::string_view name);
// Every registered controller, sorted by name.
std::vector<const IntcType*> intc_types();
// "gicv3, x2apic_cluster, ..." (sorted).
std::string intc_type_names();
void register_intc_type(IntcType type);

// The parameters of the machine's controller, as its registration read them.
template <class P>
const P& intc_params(const MachineSpec& spec) {
    return std::any_cast<const P&>(spec.intc.params);
}

template <class Impl, class P>
struct IntcRegistration {
    using Check = std::string (*)(const Topology&);
    IntcRegistration(const char* name, const char* description, std::vector<Arch> archs,
                     const config::Schema<P>& (*schema)(), Check topology_problem = nullptr) {
        IntcType t;
        t.name = name;
        t.description = description;
        t.archs = std::move(archs);
        t.read_params = [schema](config::Table table, config::CostRecord* costs) -> std::any {
            P p{};
            schema().read_into(std::move(table), p, {}, costs);
            return p;
        };
        t.write_params = [schema](const std::any& p, toml::table& out, const config::CostRecord* costs) {
            schema().write(std::any_cast<const P&>(p), out, {}, costs, "intc.params");
        };
        t.params_info = [schema] { return schema().info(); };
        t.topology_problem = [topology_problem](const Topology& topo) {
            return topology_problem != nullptr ? topology_problem(topo) : std::string();
        };
        t.create = [] { return std::make_unique<Impl>(); };
        sim::catalog().push_back(sim::CatalogEntry{"intc", name, description});
        register_intc_type(std::move(t));
    }
};

}  // namespace ipisim::hw
