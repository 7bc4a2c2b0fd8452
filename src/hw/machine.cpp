#include "hw/machine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "hw/intc/intc_type.h"
#include "hw/machine_schema.h"

namespace ipisim::hw {

namespace {

std::vector<IdleState> parse_idle(config::Table& root, Arch arch, config::Conditions& conds,
                                  config::CostRecord& costs) {
    std::vector<IdleState> out;
    std::set<std::string> names;
    for (config::Table t : root.table_array("idle")) {
        IdleState s;
        idle_schema().read_keys(t, s, conds, &costs);
        t.finish();
        if (!names.insert(s.name).second) t.fail("name", fmt::format("duplicate idle state \"{}\"", s.name));
        if (!exists_on(s.mechanism, arch)) {
            t.fail("mechanism", fmt::format("\"{}\" does not exist on {}", to_string(s.mechanism), to_string(arch)));
        }
        if (s.software_poll() && !out.empty()) {
            t.fail("mechanism", "only the first (shallowest) idle state may be \"poll\"");
        }
        if (s.wake_latency > s.exit_latency) {
            t.fail("wake_latency", fmt::format("{} is longer than the state's exit_latency {}, its worst-case bound",
                                               sim::to_string(s.wake_latency), sim::to_string(s.exit_latency)));
        }
        if (!out.empty() && s.exit_latency < out.back().exit_latency) {
            t.fail("exit_latency", "idle states must be listed shallowest first (exit_latency not decreasing)");
        }
        out.push_back(std::move(s));
    }
    if (out.empty()) root.fail("idle", "at least one idle state is required");
    return out;
}

// The router's occupancy is part of every delivery latency of the machine.
void check_router(config::Table& fabric, const IntcSpec& s, const Topology& topo) {
    for (DistanceClass c : kAllDistanceClasses) {
        if (c != DistanceClass::self && !topo.has_class(c)) continue;
        if (s.delivery.at(c) < s.router_service) {
            fabric.fail("router_service",
                        fmt::format("{} is longer than the {} delivery latency {} it is part of",
                                    sim::to_string(s.router_service), to_string(c), sim::to_string(s.delivery.at(c))));
        }
    }
}

IntcSpec parse_intc(config::Table t, const MachineSpec& m, config::Conditions& conds, config::CostRecord& costs) {
    IntcKeys keys;
    intc_schema().read_keys(t, keys, conds, &costs);
    const IntcType& type = *find_intc_type(keys.kind);
    if (!type.exists_on(m.arch)) {
        t.fail("kind", fmt::format("\"{}\" does not exist on {}", keys.kind, to_string(m.arch)));
    }
    const std::string problem = type.topology_problem(m.topology);
    if (!problem.empty()) t.fail("kind", problem);

    IntcSpec s;
    s.kind = keys.kind;
    s.params = type.read_params(t.table("params"), &costs);
    config::Table ft = t.table("fabric");
    FabricKeys fabric;
    fabric_schema().read_keys(ft, fabric, conds, &costs);
    apply_fabric_keys(fabric, s);
    check_router(ft, s, m.topology);
    const FabricProblem p = type.fabric_problem(s);
    if (!p.problem.empty()) ft.fail(p.key, p.problem);
    ft.finish();
    t.finish();
    return s;
}

}  // namespace

std::string_view to_string(Arch a) {
    for (const auto& [name, v] : kArchNames) {
        if (v == a) return name;
    }
    return "?";
}

std::string_view to_string(IdleMechanism m) {
    for (const auto& [name, x] : kIdleMechanismNames) {
        if (x == m) return name;
    }
    return "?";
}

bool exists_on(IdleMechanism m, Arch arch) {
    switch (m) {
        case IdleMechanism::poll:
            return true;
        case IdleMechanism::wfi:
        case IdleMechanism::psci:
            return arch == Arch::arm64;
        case IdleMechanism::mwait:
        case IdleMechanism::hlt:
        case IdleMechanism::ioport:
            return arch == Arch::x86;
    }
    return false;
}

std::string_view to_string(Vendor v) {
    for (const auto& [name, x] : kVendorNames) {
        if (x == v) return name;
    }
    return "?";
}

const config::CostValue* MachineSpec::cost(std::string_view key) const {
    for (const config::CostValue& c : costs) {
        if (c.key == key) return &c;
    }
    return nullptr;
}

MachineSpec load_machine(const config::Document& doc, const std::string& name) {
    MachineSpec m;
    m.name = name;
    m.source_path = doc.name();
    config::Table root = doc.root();
    config::Conditions conds;
    machine_root_schema().read_keys(root, m, conds, &m.costs);

    m.topology = Topology(parse_topology(root.table("topology"), m.arch == Arch::x86));
    conds = machine_conditions(m.arch, m.topology);
    CoherenceKeys coherence;
    coherence_schema().read_into(root.table("coherence"), coherence, conds, &m.costs);
    m.coherence = coherence_spec(coherence, m.topology.nr_packages() > 1);
    cpu_schema().read_into(root.table("cpu"), m.cpu, conds, &m.costs);
    m.idle = parse_idle(root, m.arch, conds, m.costs);
    m.intc = parse_intc(root.table("intc"), m, conds, m.costs);
    tlb_schema().read_into(root.table("tlb"), m.tlb, conds, &m.costs);
    if (m.arch != Arch::x86) m.tlb.nr_dyn_asids = 0;  // TLB_NR_DYN_ASIDS is x86's
    root.finish();
    return m;
}

MachineSpec load_machine(const std::string& path) {
    return load_machine(config::Document::load(path), std::filesystem::path(path).stem().string());
}

std::vector<std::string> list_machines(const std::string& machines_dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(machines_dir, ec)) {
        if (e.is_regular_file() && e.path().extension() == ".toml") out.push_back(e.path().stem().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

MachineSpec load_machine_by_name(const std::string& machines_dir, const std::string& name) {
    const std::vector<std::string> known = list_machines(machines_dir);
    if (std::find(known.begin(), known.end(), name) == known.end()) {
        throw config::ConfigError(machines_dir, 0, "machine",
                                  fmt::format("unknown machine \"{}\"; available: {}", name,
                                              known.empty() ? "(none)" : fmt::format("{}", fmt::join(known, ", "))));
    }
    return load_machine((std::filesystem::path(machines_dir) / (name + ".toml")).string());
}

}  // namespace ipisim::hw
