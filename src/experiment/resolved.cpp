// config.toml: the resolved configuration of a run (runner.h resolved_toml).
#include <fmt/format.h>

#include <algorithm>

#include "config/names.h"
#include "config/writer.h"
#include "experiment/runner.h"
#include "hw/machine.h"
#include "report/published.h"
#include "report/results.h"

namespace ipisim::experiment {

namespace {

using config::contains;

std::vector<std::string> keys_of(const config::SchemaInfo& info) {
    std::vector<std::string> out;
    for (const config::ParamInfo& p : info.params) out.push_back(p.key);
    return out;
}

// [published] as this run compares it: the rows that match one of its points. A row --set made
// unmatched (another sweep, mode) is left out, and without any row the setup is too: the rerun
// of config.toml, which has the overrides baked in, must not find a row no point has (an error).
toml::table published_of_run(const PreparedExperiment& prepared, const toml::table& published) {
    const report::Published& p = prepared.experiment.published;
    const toml::array* rows = published.get_as<toml::array>("rows");
    if (rows == nullptr || rows->size() != p.rows.size()) return published;  // (they are the same rows)
    toml::table out = published;
    toml::array kept;
    for (size_t r = 0; r < p.rows.size(); ++r) {
        const bool matched = std::any_of(prepared.points.begin(), prepared.points.end(), [&](const PreparedPoint& pt) {
            report::ResultRow row;
            row.params = pt.row_params;
            return report::matches(p.rows[r], row);
        });
        if (matched && rows->get(r)->is_table()) kept.push_back(*rows->get(r)->as_table());
    }
    if (kept.empty()) {
        out.erase("rows");
        out.erase("setup");  // what the rows were measured with; none of them is left
    } else {
        out.insert_or_assign("rows", std::move(kept));
    }
    return out;
}

// One resolved section: keys the file gives (or sweeps) with the file's value; the others with
// their default where every point has the same one. A default that differs between points (it
// follows a swept kernel.version) is left out, so a rerun derives it again per point.
toml::table resolved_section(const std::vector<std::string>& declared, const std::vector<std::string>& given,
                             const toml::table& base, const std::vector<const toml::table*>& points) {
    toml::table out;
    for (const std::string& key : declared) {
        const toml::node* b = base.get(key);
        if (b == nullptr) continue;  // not applicable on this machine, or an absent optional value
        bool same = true;
        if (!contains(given, key)) {
            for (const toml::table* p : points) {
                const toml::node* v = p->get(key);
                same = same && v != nullptr && config::value_text(*v) == config::value_text(*b);
            }
        }
        if (same) b->visit([&](const auto& v) { out.insert(key, v); });
    }
    return out;
}

std::string sweep_text(const Experiment& e) {
    std::string out = "[sweep]\n";
    for (const SweepKey& s : e.sweep) {
        const std::string key = s.kernel ? "kernel." + config::key_text(s.key) : config::key_text(s.key);
        out += fmt::format("{} = {}\n", key, config::value_text(*s.values));
    }
    return out;
}

// The machine part: the loaded spec written complete (hw::write_machine: every applicable value,
// each cost with its mark, range and source; a --set value marked "set"), under [machine].
std::string machine_text(const LoadedMachine& machine) {
    return config::to_toml_text(hw::write_machine(*machine.spec), "machine");
}

}  // namespace

std::string machine_hash(const PreparedExperiment& prepared) {
    return prepared.machine ? report::text_hash(machine_text(*prepared.machine)) : std::string();
}

std::string resolved_toml(const PreparedExperiment& prepared) {
    const Experiment& e = prepared.experiment;
    std::vector<std::string> swept_params;
    std::vector<std::string> swept_kernel;
    for (const SweepKey& s : e.sweep) (s.kernel ? swept_kernel : swept_params).push_back(s.key);
    std::vector<const toml::table*> params;
    std::vector<const toml::table*> kernel;
    for (const PreparedPoint& p : prepared.points) {
        params.push_back(&p.params_written);
        kernel.push_back(&p.kernel_written);
    }

    std::vector<std::string> sections;
    toml::table experiment;
    experiment_schema().write(e.table, experiment);
    sections.push_back(config::section_text("experiment", experiment, keys_of(experiment_schema().info())));
    if (prepared.machine) {
        std::vector<std::string> given = e.kernel_keys;
        given.insert(given.end(), swept_kernel.begin(), swept_kernel.end());
        const std::vector<std::string> declared = keys_of(kernel::kernel_schema().info());
        sections.push_back(
            config::section_text("kernel", resolved_section(declared, given, prepared.base_kernel, kernel), declared));
    }
    std::vector<std::string> given = e.param_keys;
    given.insert(given.end(), swept_params.begin(), swept_params.end());
    const std::vector<std::string> declared = keys_of(e.workload.params);
    sections.push_back(
        config::section_text("params", resolved_section(declared, given, prepared.base_params, params), declared));
    if (!e.sweep.empty()) sections.push_back(sweep_text(e));
    if (const toml::table* t = e.document.tree().get_as<toml::table>("published")) {
        sections.push_back(config::section_text("published", published_of_run(prepared, *t)));
    }
    if (const toml::table* t = e.document.tree().get_as<toml::table>("report")) {
        sections.push_back(config::section_text("report", *t));
    }
    if (prepared.machine) sections.push_back(machine_text(*prepared.machine));

    std::string out;
    for (const std::string& s : sections) out += (out.empty() ? "" : "\n") + s;
    return out;
}

}  // namespace ipisim::experiment
