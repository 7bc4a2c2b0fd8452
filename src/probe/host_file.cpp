#include "probe/host_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <type_traits>
#include <vector>

#include "probe/host_schema.h"
#include "probe/host_values.h"

namespace ipisim::probe {

std::string ns_text(double ns) {
    return fmt::format("{:.1f} ns", std::round(ns * 10.0) / 10.0);
}

namespace {

// The [topology], arch and vendor: from the importer's skeleton, or a flat layout of the CPUs.
void put_topology(const ProbeResults& r, toml::table& root) {
    if (!r.topology.skeleton.empty()) {
        const toml::table skeleton =
            toml::parse(std::string_view(r.topology.skeleton), std::string_view("(hwloc import)"));
        root.insert_or_assign("arch", *skeleton.get("arch"));
        root.insert_or_assign("vendor", *skeleton.get("vendor"));
        root.insert_or_assign("topology", *skeleton.get("topology"));
        return;
    }
    const bool x86 = r.info.machine.empty() || r.info.machine == "x86_64" || r.info.machine == "i686";
    root.insert_or_assign("arch", x86 ? "x86" : "arm64");
    root.insert_or_assign("vendor", r.info.vendor_id == "GenuineIntel"   ? "intel"
                                    : r.info.vendor_id == "AuthenticAMD" ? "amd"
                                                                         : "generic");
    toml::table t;
    t.insert_or_assign("packages", 1);
    t.insert_or_assign("dies_per_package", 1);
    t.insert_or_assign("l3_per_die", 1);
    t.insert_or_assign("cores_per_l3", static_cast<int64_t>(std::max<size_t>(r.topology.cpus.size(), 1)));
    t.insert_or_assign("threads_per_core", 1);
    t.insert_or_assign("numa_nodes", 1);
    t.insert_or_assign("cpu_numbering", "smt_last");
    t.insert_or_assign("hw_id", x86 ? "apic" : "mpidr_flat");
    root.insert_or_assign("topology", std::move(t));
}

void inline_marked_values(toml::table& t) {
    for (auto&& [k, v] : t) {
        if (toml::table* sub = v.as_table()) {
            if (sub->contains("mark")) {
                sub->is_inline(true);
            } else {
                inline_marked_values(*sub);
            }
        } else if (toml::array* a = v.as_array()) {
            for (toml::node& e : *a) {
                if (toml::table* et = e.as_table()) inline_marked_values(*et);
            }
        }
    }
}

}  // namespace

toml::table host_machine_table(const ProbeResults& r) {
    toml::table root;
    const std::string model = !r.info.model_name.empty() ? r.info.model_name : r.topology.cpu_model;
    root.insert_or_assign("description",
                          fmt::format("{} ({}{} CPUs, probed {} by ipisim probe)", model.empty() ? "host" : model,
                                      r.info.virtualized() ? "VM, " : "", r.topology.cpus.size(), r.date));
    put_topology(r, root);
    HostValues v(r, root);
    root.insert_or_assign("clock", v.clock());
    root.insert_or_assign("coherence", v.coherence());
    root.insert_or_assign("cpu", v.cpu());
    root.insert_or_assign("idle", v.idle());
    root.insert_or_assign("intc", v.intc());
    root.insert_or_assign("tlb", v.tlb());
    inline_marked_values(root);
    return root;
}

std::string host_machine_text(const ProbeResults& r, const std::vector<FittedCost>& fitted) {
    std::string out;
    out += fmt::format("# Machine file of this host, written by `{}` on {}.\n", r.command, r.date);
    out += "# Measured values are marked P (source: date, command, median of N, spread; range = [p5, p95]);\n";
    out += "# values the probe cannot measure are marked A with a plausible range and a rationale.\n";
    if (fitted.empty()) {
        out += "# Nothing here is fitted. Re-run `ipisim probe` rather than editing by hand.\n";
    } else {
        out += "# Fitted (F) with ipisim calibrate to this probe's own microbenchmarks (docs/probe.md):";
        for (const FittedCost& f : fitted) out += fmt::format(" {}.{}", f.section, f.key);
        out += ".\n# Re-run `ipisim probe` rather than editing by hand.\n";
    }
    out += fmt::format("# kernel: {} {} ({})\n", r.info.sysname, r.info.release, r.info.machine);
    out += fmt::format(
        "# virtualized: {}{}\n", r.info.virtualized() ? "yes" : "no",
        r.info.hypervisor_vendor.empty() ? "" : fmt::format(" (hypervisor \"{}\")", r.info.hypervisor_vendor));
    out += fmt::format("# load average at start: {}; measuring threads {}\n", r.load_average,
                       r.realtime ? "SCHED_FIFO" : "at normal priority");
    if (!r.info.apic_routing.empty()) out += fmt::format("# APIC routing (dmesg): {}\n", r.info.apic_routing);
    if (r.info.pv_send_ipi) out += "# paravirtual IPIs: kvm_send_ipi_mask (an IPI send is a hypercall)\n";
    if (r.info.pv_tlb_flush) out += "# paravirtual TLB flush: KVM skips shootdown IPIs to preempted vCPUs\n";
    for (const std::string& m : r.info.mitigations) out += fmt::format("# mitigation: {}\n", m);
    if (!r.placement.empty()) {
        out += fmt::format(
            "# placement: a line between CPUs {} and {} took {:.1f} ns in the cache-line step; the steps on "
            "both CPUs were checked before and after:\n",
            r.caller_cpu, r.target_cpu.value_or(0), r.pair_line_ns);
        for (const StepPlacement& s : r.placement) {
            out += fmt::format("#   {}: {}{}\n", s.what, check_text(s.check),
                               s.check.matched() ? "" : ": another placement (the host moved the CPUs)");
        }
    }
    for (const Skipped& s : r.skipped) out += fmt::format("# skipped: {}: {}\n", s.what, s.why);
    out += "\n";
    toml::table root = host_machine_table(r);
    for (const FittedCost& f : fitted) {
        toml::table* section = root.at_path(f.section).as_table();
        toml::table* marked = section != nullptr ? section->get_as<toml::table>(f.key) : nullptr;
        if (marked == nullptr) throw std::logic_error(fmt::format("host.toml has no {}.{}", f.section, f.key));
        marked->insert_or_assign("value", ns_text(f.ns));
        marked->erase("fit");
        if (f.fit_ns) {
            // Outward to the written tenth of a ns, so the interval holds the written value.
            const double lo = std::min(std::floor(f.fit_ns->first * 10) / 10, f.ns);
            const double hi = std::max(std::ceil(f.fit_ns->second * 10) / 10, f.ns);
            toml::array a;
            a.push_back(ns_text(lo));
            a.push_back(ns_text(hi));
            marked->insert_or_assign("fit", std::move(a));
        }
        marked->insert_or_assign("mark", "F");
        marked->insert_or_assign("source", f.source);
        marked->insert_or_assign("target", f.target);
    }
    std::ostringstream os;
    os << toml::toml_formatter(root);
    out += os.str();
    out += "\n";
    return out;
}

hw::MachineSpec load_host_machine(const std::string& text, const std::string& name) {
    return check_host_file(config::Document::parse(text, name));
}

}  // namespace ipisim::probe
