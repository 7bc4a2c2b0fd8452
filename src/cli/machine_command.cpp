#include "cli/machine_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/output_paths.h"
#include "hw/cpumask.h"
#include "hw/hwloc_import.h"
#include "hw/intc/intc_type.h"
#include "hw/machine_schema.h"
#include "report/results_files.h"
#include "report/text_table.h"

namespace ipisim::cli {

namespace {

std::string indent(const std::string& text, const std::string& by = "  ") {
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        out +=
            fmt::format("{}{}", by, text.substr(start, end == std::string::npos ? std::string::npos : end - start + 1));
        start = end == std::string::npos ? text.size() : end + 1;
    }
    return out;
}

// x86: the APIC id in hex; arm64: the MPIDR affinity levels Aff3.Aff2.Aff1.Aff0.
std::string hw_id_text(const hw::MachineSpec& m, uint64_t id) {
    if (m.topology.spec().hw_id == hw::HwIdScheme::apic) return fmt::format("{:#x}", id);
    return fmt::format("{}.{}.{}.{}", (id >> 32) & 0xFF, (id >> 16) & 0xFF, (id >> 8) & 0xFF, id & 0xFF);
}

std::string cpus_text(const hw::MachineSpec& m, const std::vector<hw::CpuId>& cpus) {
    hw::CpuMask mask(m.topology.nr_cpus());
    for (hw::CpuId c : cpus) mask.set(c);
    return mask.to_string();
}

std::string topology_tree(const hw::MachineSpec& m) {
    const hw::Topology& t = m.topology;
    const char* id_name = t.spec().hw_id == hw::HwIdScheme::apic ? "APIC id" : "MPIDR Aff3.Aff2.Aff1.Aff0";
    std::string out = fmt::format("topology: {}\n  (CPU numbers as Linux numbers them, [{}])\n", t.summary(), id_name);
    std::vector<std::vector<hw::CpuId>> die_cpus(t.nr_dies());
    std::vector<std::vector<hw::CpuId>> core_cpus(t.nr_cores());
    std::vector<std::vector<uint32_t>> l3s_of_die(t.nr_dies());
    std::vector<std::vector<uint32_t>> cores_of_l3(t.nr_l3());
    for (const hw::CpuInfo& c : t.cpus()) {
        die_cpus[c.die].push_back(c.cpu);
        core_cpus[c.core].push_back(c.cpu);
    }
    for (uint32_t l3 = 0; l3 < t.nr_l3(); ++l3) l3s_of_die[t.cpu(t.cpus_in_l3(l3).front()).die].push_back(l3);
    for (uint32_t core = 0; core < t.nr_cores(); ++core) cores_of_l3[t.cpu(core_cpus[core].front()).l3].push_back(core);
    for (uint32_t p = 0; p < t.nr_packages(); ++p) {
        out += fmt::format("package {}: CPUs {}\n", p, cpus_text(m, t.cpus_in_package(p)));
        for (uint32_t d = p * t.spec().dies_per_package; d < (p + 1) * t.spec().dies_per_package; ++d) {
            out += fmt::format("  die {}: CPUs {}\n", d, cpus_text(m, die_cpus[d]));
            for (uint32_t l3 : l3s_of_die[d]) {
                const std::vector<hw::CpuId>& cpus = t.cpus_in_l3(l3);
                out += fmt::format("    L3 {} (node {}): CPUs {}\n", l3, t.node_of(cpus.front()), cpus_text(m, cpus));
                for (uint32_t core : cores_of_l3[l3]) {
                    std::string threads;
                    for (hw::CpuId c : core_cpus[core]) {
                        threads +=
                            fmt::format("{}cpu{} [{}]", threads.empty() ? "" : "  ", c, hw_id_text(m, t.hw_id(c)));
                    }
                    out += fmt::format("      core {}: {}\n", core, threads);
                }
            }
        }
    }
    return out;
}

std::string distances(const hw::MachineSpec& m) {
    report::TextTable table({"class", "e.g.", "cache-line transfer", "IPI delivery"});
    for (hw::DistanceClass c : hw::kAllDistanceClasses) {
        if (!m.topology.has_class(c)) continue;
        std::string example;
        for (hw::CpuId b = 0; b < m.topology.nr_cpus(); ++b) {
            if (m.topology.distance(0, b) == c) {
                example = fmt::format("cpu0 -> cpu{}", b);
                break;
            }
        }
        table.add_row({std::string(hw::to_string(c)), example, config::duration_text(m.coherence.transfer.at(c)),
                       config::duration_text(m.intc.delivery.at(c))});
    }
    return fmt::format("distance classes:\n{}", indent(table.render()));
}

std::string idle_states(const hw::MachineSpec& m) {
    report::TextTable table({"idle state", "exit_latency", "target_residency", "wake_latency", "mechanism"});
    for (const hw::IdleState& s : m.idle) {
        table.add_row({s.name, config::duration_text(s.exit_latency), config::duration_text(s.target_residency),
                       config::duration_text(s.wake_latency), std::string(hw::to_string(s.mechanism))});
    }
    return fmt::format("idle states:\n{}", indent(table.render()));
}

std::string value_text(config::ParamType type, double v) {
    switch (type) {
        case config::ParamType::duration:
            return config::duration_text(sim::Picos(static_cast<uint64_t>(v)));
        case config::ParamType::frequency:
            return config::frequency_text(sim::ClockDomain(static_cast<uint64_t>(v)));
        case config::ParamType::integer:
            return fmt::format("{}", static_cast<int64_t>(v));
        default:
            return fmt::format("{}", v);
    }
}

std::string costs(const hw::MachineSpec& m) {
    report::TextTable table({"cost", "value", "mark", "range", "source"});
    size_t marked = 0;
    for (const config::CostValue& c : m.costs) {
        const config::Provenance& p = c.provenance;
        marked += p.mark != config::Mark::unmarked ? 1 : 0;
        std::string range =
            p.range ? fmt::format("{} .. {}", value_text(c.type, p.range->lo), value_text(c.type, p.range->hi)) : "";
        if (p.fit && p.mark == config::Mark::F) {
            range += fmt::format(" (fit {} .. {})", value_text(c.type, p.fit->lo), value_text(c.type, p.fit->hi));
        }
        std::string source = p.source;
        if (!p.target.empty()) source += fmt::format(" (fitted to {})", p.target);
        table.add_row({c.key, value_text(c.type, c.value), config::to_string(p.mark), range, source});
    }
    return fmt::format("costs ({} of {} marked; P published, D derived, A assumption, F fitted, - unmarked):\n", marked,
                       m.costs.size()) +
           indent(table.render());
}

std::string param_type_text(const config::ParamInfo& p) {
    std::string out = config::to_string(p.type);
    if (!p.unit.empty()) out += fmt::format(" ({})", p.unit);
    if (p.cost) out += ", cost";
    return out;
}

std::string param_default_text(const config::ParamInfo& p) {
    if (!p.default_text.empty()) return p.default_text;
    if (!p.default_doc.empty()) return p.default_doc;
    return p.optional ? "optional" : "required";
}

std::string param_allowed_text(const config::ParamInfo& p) {
    std::string out;
    for (const std::string& c : p.choices) out += fmt::format("{}{}", out.empty() ? "" : ", ", c);
    if (p.min && p.max) {
        out = fmt::format("{} .. {}", config::detail::bound_text(p, *p.min), config::detail::bound_text(p, *p.max));
    } else if (p.min) {
        out = fmt::format(">= {}", config::detail::bound_text(p, *p.min));
    } else if (p.max) {
        out = fmt::format("<= {}", config::detail::bound_text(p, *p.max));
    }
    return out;
}

// One schema: its name and doc, then a table of its parameters.
std::string schema_text(const config::SchemaInfo& info) {
    report::TextTable table({"key", "type", "default", "allowed", "applies when", "meaning"});
    for (const config::ParamInfo& p : info.params) {
        table.add_row({p.key, param_type_text(p), param_default_text(p), param_allowed_text(p),
                       p.when.empty() ? "always" : p.when, p.doc});
    }
    return fmt::format("{}: {}\n", info.name, info.doc) + indent(table.render());
}

}  // namespace

int machine_import_command(const std::string& xml_path, const std::string& out_path) {
    if (!out_path.empty()) check_output_file("--output", out_path);
    const std::string toml_text = hw::import_hwloc_xml(xml_path);
    if (out_path.empty()) {
        fmt::print("{}", toml_text);
    } else {
        report::write_text_file(out_path, toml_text);
        fmt::print(stderr, "wrote {}\n", out_path);
    }
    return 0;
}

std::string render_machine(const hw::MachineSpec& m) {
    const hw::IntcType* intc = hw::find_intc_type(m.intc.kind);
    std::string out = fmt::format("{}: {}\n", m.name, m.description);
    out += fmt::format("  file: {}\n", m.source_path);
    out += fmt::format("  {} ({}), clock {}, interrupt controller {}{}\n", hw::to_string(m.arch),
                       hw::to_string(m.vendor), config::frequency_text(m.clock), m.intc.kind,
                       intc != nullptr ? fmt::format(": {}", intc->description) : "");
    out += fmt::format("  TLB: {} entries, PCID/ASID {}{}{}\n", m.tlb.entries, m.tlb.pcid ? "on" : "off",
                       m.tlb.invlpgb_count_max > 0 ? fmt::format(", INVLPGB ({} pages)", m.tlb.invlpgb_count_max) : "",
                       m.tlb.rar_payloads > 0 ? fmt::format(", RAR ({} payloads)", m.tlb.rar_payloads) : "");
    return fmt::format("{}\n{}\n{}\n{}\n{}", out, topology_tree(m), distances(m), idle_states(m), costs(m));
}

int machine_show_command(const std::string& machine, const DataDirs& dirs) {
    const bool is_path =
        machine.find('/') != std::string::npos || std::filesystem::path(machine).extension() == ".toml";
    const hw::MachineSpec m = is_path ? hw::load_machine(machine) : hw::load_machine_by_name(dirs.machines, machine);
    fmt::print("{}", render_machine(m));
    return 0;
}

std::string render_machine_params() {
    std::string out =
        "Machine files (machines/NAME.toml). A cost may carry its provenance inline:\n"
        "  key = { value = ..., mark = \"P\"|\"D\"|\"A\"|\"F\", range = [low, high], source = \"...\" }\n"
        "  (A and F need a range, F a target; docs/calibration.md has the rules).\n\n";
    bool first = true;
    for (const config::SchemaInfo& info : hw::machine_schema_infos()) {
        if (!first) out += "\n";
        first = false;
        out += schema_text(info);
    }
    return out;
}

}  // namespace ipisim::cli
