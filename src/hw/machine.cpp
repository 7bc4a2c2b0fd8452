#include "hw/machine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace ipisim::hw {

namespace {

// Reads a duration that only applies to some machines: required where it applies, an error
// where it does not (so a cost never sits in a file unused).
sim::Picos applicable_duration(config::Table& t, std::string_view key, bool applies, const char* why_not) {
    if (applies) return t.duration(key);
    if (t.has(key)) t.fail(key, fmt::format("only meaningful {}", why_not));
    return sim::Picos::zero();
}

// One key per distance class except `self`; required for the classes that occur on this
// topology, optional (kept when given) for the others.
DistanceTable parse_distance_table(config::Table& t, const Topology& topo) {
    DistanceTable out;
    for (DistanceClass c : kAllDistanceClasses) {
        if (c == DistanceClass::self) continue;
        const std::string_view key = to_string(c);
        out.at(c) = topo.has_class(c) ? t.duration(key) : t.duration_or(key, sim::Picos::zero());
    }
    return out;
}

CoherenceSpec parse_coherence(config::Table t, const Topology& topo) {
    CoherenceSpec c;
    c.l1_hit = t.duration("l1_hit");
    c.transfer = parse_distance_table(t, topo);
    c.transfer.at(DistanceClass::self) = c.l1_hit;
    const bool multi_package = topo.nr_packages() > 1;
    c.remote_home_extra =
        multi_package ? t.duration("remote_home_extra") : t.duration_or("remote_home_extra", sim::Picos::zero());
    c.memory_local = t.duration("memory_local");
    c.memory_remote = multi_package ? t.duration("memory_remote") : t.duration_or("memory_remote", c.memory_local);
    c.line_occupancy = t.duration("line_occupancy");
    t.finish();
    return c;
}

CpuSpec parse_cpu(config::Table t, const Topology& topo) {
    CpuSpec c;
    c.irq_entry = t.duration("irq_entry");
    c.irq_exit = t.duration("irq_exit");
    c.eoi = t.duration("eoi");
    c.context_switch = t.duration("context_switch");
    c.syscall = t.duration("syscall");
    c.rdmsr = t.duration("rdmsr");
    c.wrmsr = t.duration("wrmsr");
    c.rdmsr_qm_ctr = t.duration("rdmsr_qm_ctr");
    if (topo.has_class(DistanceClass::smt)) {
        c.smt_throughput_percent = t.get<uint32_t>("smt_throughput_percent");
        if (c.smt_throughput_percent < 1 || c.smt_throughput_percent > 100) {
            t.fail("smt_throughput_percent", fmt::format("must be 1..100, got {}", c.smt_throughput_percent));
        }
    } else if (t.has("smt_throughput_percent")) {
        t.fail("smt_throughput_percent", "only meaningful with threads_per_core > 1");
    }
    t.finish();
    return c;
}

std::vector<IdleState> parse_idle(config::Table& root) {
    std::vector<IdleState> out;
    std::set<std::string> names;
    for (config::Table t : root.table_array("idle")) {
        IdleState s;
        s.name = t.get<std::string>("name");
        s.exit_latency = t.duration("exit_latency");
        s.target_residency = t.duration("target_residency");
        s.polling = t.get<bool>("polling");
        t.finish();
        if (!names.insert(s.name).second) t.fail("name", fmt::format("duplicate idle state \"{}\"", s.name));
        if (s.polling && !out.empty()) t.fail("polling", "only the first (shallowest) idle state may poll");
        if (!out.empty() && s.exit_latency < out.back().exit_latency) {
            t.fail("exit_latency", "idle states must be listed shallowest first (exit_latency not decreasing)");
        }
        out.push_back(std::move(s));
    }
    if (out.empty()) root.fail("idle", "at least one idle state is required");
    return out;
}

IntcKind parse_intc_kind(config::Table& t) {
    const auto kind = t.get<std::string>("kind");
    if (kind == "x2apic_phys") return IntcKind::x2apic_phys;
    if (kind == "x2apic_cluster") return IntcKind::x2apic_cluster;
    if (kind == "xapic_mmio") return IntcKind::xapic_mmio;
    if (kind == "gicv3") return IntcKind::gicv3;
    t.fail("kind",
           fmt::format("unknown interrupt controller \"{}\" (x2apic_phys, x2apic_cluster, xapic_mmio, gicv3)", kind));
}

void parse_intc_params(config::Table p, IntcSpec& s) {
    switch (s.kind) {
        case IntcKind::x2apic_phys:
        case IntcKind::x2apic_cluster:
            s.icr_write = p.duration("icr_write");
            s.fence = p.duration("fence");
            break;
        case IntcKind::xapic_mmio:
            s.icr_write = p.duration("icr_write");
            s.icr_read = p.duration("icr_read");
            s.icr_busy = p.duration("icr_busy");
            s.icr_busy_per_inflight = p.duration("icr_busy_per_inflight");
            s.rar_round_trip = p.get<bool>("rar_round_trip");
            s.rar_reply = applicable_duration(p, "rar_reply", s.rar_round_trip, "with rar_round_trip = true");
            break;
        case IntcKind::gicv3:
            s.sgi1r_write = p.duration("sgi1r_write");
            s.dsb_st = p.duration("dsb_st");
            s.dsb_ishst = p.duration("dsb_ishst");
            s.isb = p.duration("isb");
            break;
    }
    p.finish();
}

IntcSpec parse_intc(config::Table t, const Topology& topo, Arch arch) {
    IntcSpec s;
    s.kind = parse_intc_kind(t);
    const bool gic = s.kind == IntcKind::gicv3;
    if (gic != (arch == Arch::arm64)) {
        t.fail("kind", fmt::format("\"{}\" does not exist on {}", to_string(s.kind), gic ? "x86" : "arm64"));
    }
    if (s.kind == IntcKind::xapic_mmio) {
        uint64_t max_id = 0;
        for (const CpuInfo& c : topo.cpus()) max_id = std::max(max_id, c.hw_id);
        if (max_id > 0xFE) {
            t.fail("kind",
                   fmt::format("xAPIC ids are 8 bits (0xFF is broadcast); this topology needs APIC id {}", max_id));
        }
    }
    parse_intc_params(t.table("params"), s);

    config::Table f = t.table("fabric");
    s.delivery = parse_distance_table(f, topo);
    s.delivery.at(DistanceClass::self) = f.duration("self");
    s.capacity = f.get<uint32_t>("capacity");
    if (s.capacity == 0) f.fail("capacity", "must be at least 1 message in flight");
    s.accept = f.duration("accept");
    s.router_service = f.duration("router_service");
    for (DistanceClass c : kAllDistanceClasses) {
        if (c != DistanceClass::self && !topo.has_class(c)) continue;
        if (s.delivery.at(c) < s.router_service) {
            f.fail("router_service",
                   fmt::format("{} is longer than the {} delivery latency {} it is part of",
                               sim::to_string(s.router_service), to_string(c), sim::to_string(s.delivery.at(c))));
        }
    }
    if (s.kind == IntcKind::xapic_mmio && s.icr_busy < s.router_service) {
        f.fail("router_service", fmt::format("{} is longer than intc.params.icr_busy {}: the ICR stays busy until the "
                                             "router has taken the message",
                                             sim::to_string(s.router_service), sim::to_string(s.icr_busy)));
    }
    f.finish();
    t.finish();
    return s;
}

TlbSpec parse_tlb(config::Table t, Arch arch) {
    TlbSpec s;
    const bool x86 = arch == Arch::x86;
    s.entries = t.get<uint32_t>("entries");
    if (s.entries == 0) t.fail("entries", "must be at least 1");
    s.invlpg = t.duration("invlpg");
    s.full_flush = t.duration("full_flush");
    s.invpcid_addr = applicable_duration(t, "invpcid_addr", x86, "on x86");
    s.invpcid_all = applicable_duration(t, "invpcid_all", x86, "on x86");
    s.refill_per_entry = t.duration("refill_per_entry");
    s.pcid = t.get<bool>("pcid");
    if (x86) {
        s.nr_dyn_asids = t.get<uint32_t>("nr_dyn_asids");
        if (s.nr_dyn_asids == 0 || s.nr_dyn_asids > 4096) t.fail("nr_dyn_asids", "must be 1..4096");
    } else {
        s.nr_dyn_asids = 0;
        if (t.has("nr_dyn_asids")) t.fail("nr_dyn_asids", "only meaningful on x86");
    }

    s.invlpgb_count_max = x86 ? t.get<uint32_t>("invlpgb_count_max") : 0;
    if (!x86 && t.has("invlpgb_count_max")) t.fail("invlpgb_count_max", "only meaningful on x86");
    const bool invlpgb = s.invlpgb_count_max > 0;
    s.invlpgb_issue = applicable_duration(t, "invlpgb_issue", invlpgb, "when invlpgb_count_max > 0");
    s.tlbsync = applicable_duration(t, "tlbsync", invlpgb, "when invlpgb_count_max > 0");

    s.rar_payloads = x86 ? t.get<uint32_t>("rar_payloads") : 0;
    if (!x86 && t.has("rar_payloads")) t.fail("rar_payloads", "only meaningful on x86");
    if (s.rar_payloads > 256) t.fail("rar_payloads", "must be at most 256");
    s.rar_per_payload = applicable_duration(t, "rar_per_payload", s.rar_payloads > 0, "when rar_payloads > 0");

    s.tlbi_is = applicable_duration(t, "tlbi_is", !x86, "on arm64");
    s.dsb_ish = applicable_duration(t, "dsb_ish", !x86, "on arm64");
    t.finish();
    return s;
}

}  // namespace

std::string_view to_string(IntcKind k) {
    switch (k) {
        case IntcKind::x2apic_phys:
            return "x2apic_phys";
        case IntcKind::x2apic_cluster:
            return "x2apic_cluster";
        case IntcKind::xapic_mmio:
            return "xapic_mmio";
        case IntcKind::gicv3:
            return "gicv3";
    }
    return "?";
}

config::Table MachineSpec::intc_params() const {
    return document.root().table("intc").table("params");
}

MachineSpec load_machine(const config::Document& doc, const std::string& name) {
    MachineSpec m;
    m.name = name;
    m.source_path = doc.name();
    m.document = doc;
    config::Table root = doc.root();
    m.description = root.get<std::string>("description");

    const auto arch = root.get<std::string>("arch");
    if (arch == "x86")
        m.arch = Arch::x86;
    else if (arch == "arm64")
        m.arch = Arch::arm64;
    else
        root.fail("arch", fmt::format("unknown arch \"{}\" (x86, arm64)", arch));

    const auto vendor = root.get<std::string>("vendor");
    if (vendor == "intel")
        m.vendor = Vendor::intel;
    else if (vendor == "amd")
        m.vendor = Vendor::amd;
    else if (vendor == "hisilicon")
        m.vendor = Vendor::hisilicon;
    else if (vendor == "generic")
        m.vendor = Vendor::generic;
    else
        root.fail("vendor", fmt::format("unknown vendor \"{}\" (intel, amd, hisilicon, generic)", vendor));
    if ((m.vendor == Vendor::intel || m.vendor == Vendor::amd) && m.arch != Arch::x86) {
        root.fail("vendor", "intel and amd machines are x86");
    }
    if (m.vendor == Vendor::hisilicon && m.arch != Arch::arm64) root.fail("vendor", "hisilicon machines are arm64");

    m.clock = root.frequency("clock");
    if (m.clock.khz() == 0) root.fail("clock", "must be above 0 Hz");

    m.topology = Topology(parse_topology(root.table("topology"), m.arch == Arch::x86));
    m.coherence = parse_coherence(root.table("coherence"), m.topology);
    m.cpu = parse_cpu(root.table("cpu"), m.topology);
    m.idle = parse_idle(root);
    m.intc = parse_intc(root.table("intc"), m.topology, m.arch);
    m.tlb = parse_tlb(root.table("tlb"), m.arch);
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
