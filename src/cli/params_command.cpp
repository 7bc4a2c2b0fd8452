#include "cli/params_command.h"

#include <fmt/format.h>

#include <toml++/toml.h>

#include "cli/machine_command.h"
#include "config/error.h"
#include "config/schema.h"
#include "sim/registry.h"
#include "workload/workload.h"

namespace ipisim::cli {

namespace {

constexpr std::string_view kWorkloadPrefix = "workload.";

std::string type_text(const config::ParamInfo& p) {
    std::string t = config::to_string(p.type);
    if (!p.unit.empty()) t += fmt::format(" ({})", p.unit);
    return t;
}

std::string bound_text(const config::ParamInfo& p, double v) {
    return config::detail::bound_text(p, v);
}

// "choice, default "ipi", when x86; one of: invlpgb, ipi" and the like.
std::string summary(const config::ParamInfo& p, bool metric) {
    std::string s = type_text(p);
    if (!metric) {
        if (!p.default_text.empty()) {
            s += ", default " + p.default_text;
        } else if (!p.default_doc.empty()) {
            s += ", default: " + p.default_doc;
        } else if (p.optional) {
            s += ", optional";
        } else {
            s += ", required";
        }
    }
    if (!p.when.empty()) s += fmt::format(", when {}", p.when);
    if (!p.choices.empty()) s += fmt::format("; one of: {}", fmt::join(p.choices, ", "));
    if (p.min) s += "; at least " + bound_text(p, *p.min);
    if (p.max) s += "; at most " + bound_text(p, *p.max);
    if (p.cost) s += "; a cost (may carry mark, range, source)";
    return s;
}

std::string params_text(const std::vector<config::ParamInfo>& params, bool metric) {
    size_t width = 0;
    for (const config::ParamInfo& p : params) width = std::max(width, p.key.size());
    std::string out;
    for (const config::ParamInfo& p : params) {
        out += fmt::format("  {:<{}}  {}\n", p.key, width, summary(p, metric));
        if (!p.doc.empty()) out += fmt::format("  {:<{}}    {}\n", "", width, p.doc);
    }
    return out.empty() ? "  (none)\n" : out;
}

std::string schema_text(const std::string& name, const config::SchemaInfo& info) {
    std::string out = fmt::format("[{}]{}\n", name, info.doc.empty() ? "" : " " + info.doc);
    out += params_text(info.params, false);
    if (name.rfind(kWorkloadPrefix, 0) == 0) {
        const std::string workload = name.substr(kWorkloadPrefix.size());
        if (auto w = sim::Registry<workload::Workload>::instance().create(workload)) {
            const workload::WorkloadInfo wi = w->info();
            out += "metrics:\n" + params_text(wi.metrics.params, true);
            std::string needs = wi.traits.needs_machine ? "a machine and [kernel]" : "no machine";
            if (wi.traits.x86_only) needs += ", x86 only";
            out += fmt::format("runs on: {}\n", needs);
        }
    }
    return out;
}

// The catalog names NAME selects.
std::vector<std::string> selected(const std::string& name) {
    const auto& catalog = config::schema_catalog();
    std::vector<std::string> out;
    if (name.empty()) {
        for (const auto& [n, f] : catalog) out.push_back(n);
        return out;
    }
    for (const std::string& candidate : {name, std::string(kWorkloadPrefix) + name}) {
        if (catalog.count(candidate) != 0) return {candidate};
    }
    for (const auto& [n, f] : catalog) {
        if (n.rfind(name + ".", 0) == 0) out.push_back(n);
    }
    return out;
}

}  // namespace

std::string render_params(const std::string& name) {
    // Every machine section and each registered interrupt controller's [intc.params].
    if (name == "machine") return render_machine_params();
    const std::vector<std::string> names = selected(name);
    if (names.empty()) {
        std::string known;
        for (const auto& [n, f] : config::schema_catalog()) {
            const std::string shown = n.rfind(kWorkloadPrefix, 0) == 0 ? n.substr(kWorkloadPrefix.size()) : n;
            known += (known.empty() ? "" : ", ") + shown;
        }
        throw config::ConfigError("--params", 0, name,
                                  fmt::format("no parameters declared under this name (known: {})", known));
    }
    std::string out;
    for (const std::string& n : names) {
        if (!out.empty()) out += "\n";
        out += schema_text(n, config::schema_catalog().at(n)());
    }
    return out;
}

std::string render_workload_help(const std::string& experiment_file) {
    try {
        const toml::table t = toml::parse_file(experiment_file);
        const std::optional<std::string> workload = t.at_path("experiment.workload").value<std::string>();
        if (!workload) return "";
        const std::string name = std::string(kWorkloadPrefix) + *workload;
        if (config::schema_catalog().count(name) == 0) return "";
        return fmt::format("\nworkload {} of {}:\n", *workload, experiment_file) +
               schema_text(name, config::schema_catalog().at(name)());
    } catch (const toml::parse_error&) {
        return "";
    }
}

}  // namespace ipisim::cli
