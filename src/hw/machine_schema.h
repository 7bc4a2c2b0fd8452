// The machine-file schema: every section of machines/*.toml declared once with config::Schema
// (type, unit, doc, bounds, cost marks, applicability). load_machine(), write_machine(),
// `ipisim list --params machine` and `ipisim machine import` all derive from these
// declarations. Applicability (`.when`) uses the conditions below, named by the fact they test,
// so an error reads "tlb.tlbi_is: only meaningful when arch = "arm64"".
#pragma once

#include <string>
#include <vector>

#include "config/schema.h"
#include "hw/machine.h"

namespace ipisim::hw {

// Condition names of .when() in the machine schema.
namespace cond {
inline constexpr const char* x86 = "arch = \"x86\"";
inline constexpr const char* arm64 = "arch = \"arm64\"";
inline constexpr const char* multi_package = "packages > 1";
inline constexpr const char* invlpgb = "invlpgb_count_max > 0";
inline constexpr const char* rar = "rar_payloads > 0";
}  // namespace cond

// The condition under which a distance class occurs ("threads_per_core > 1" for smt, ...).
const char* distance_condition(DistanceClass c);
// The arch and topology conditions of a machine.
config::Conditions machine_conditions(Arch arch, const Topology& topo);

// The file layout of the sections whose values are distance tables.
struct CoherenceKeys {
    sim::Picos l1_hit, smt, same_l3, same_die, same_package, cross_package;
    sim::Picos remote_home_extra, memory_local, memory_remote, line_occupancy;
    uint32_t fill_buffers = 1;
    uint32_t store_buffer = 0;
};
struct FabricKeys {
    sim::Picos self, smt, same_l3, same_die, same_package, cross_package;
    uint32_t capacity = 0;
    sim::Picos accept;
    sim::Picos router_service;
};
struct IntcKeys {
    std::string kind;
};
CoherenceKeys coherence_keys(const CoherenceSpec& c);
CoherenceSpec coherence_spec(const CoherenceKeys& k, bool multi_package);
FabricKeys fabric_keys(const IntcSpec& s);
void apply_fabric_keys(const FabricKeys& k, IntcSpec& s);

// Top level: description, arch, vendor, clock.
const config::Schema<MachineSpec>& machine_root_schema();
const config::Schema<CoherenceKeys>& coherence_schema();
const config::Schema<CpuSpec>& cpu_schema();
const config::Schema<IdleState>& idle_schema();
const config::Schema<IntcKeys>& intc_schema();
const config::Schema<FabricKeys>& fabric_schema();
const config::Schema<TlbSpec>& tlb_schema();

// Every section's declaration in file order ([topology] from hw/topology.h), then each
// registered controller's [intc.params] as "intc.params (KIND)".
std::vector<config::SchemaInfo> machine_schema_infos();

}  // namespace ipisim::hw
