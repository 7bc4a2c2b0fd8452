#include "experiment/sensitivity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

#include "experiment/machine_edit.h"
#include "experiment/parallel.h"
#include "report/results.h"
#include "report/text_table.h"

namespace ipisim::experiment {

namespace {

using Json = nlohmann::ordered_json;

std::optional<double> number_of(const Json& metrics, const std::string& m) {
    const auto it = metrics.find(m);
    if (it == metrics.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

// A quantity screened: its value from the per-point metrics of one machine.
struct Quantity {
    Json head;  // name, point(s), params, metric
    std::function<std::optional<double>(const std::vector<Json>&)> value;
};

bool is_choice(const SweepKey& k) {
    for (const toml::node& v : *k.values) {
        if (!v.is_string() && !v.is_boolean()) return false;
    }
    return k.values->size() >= 2;
}

std::string value_name(const toml::node& v) {
    if (const auto* s = v.as_string()) return s->get();
    return v.as_boolean()->get() ? "true" : "false";
}

std::vector<Quantity> quantities(const PreparedExperiment& prepared, const std::vector<std::string>& metrics) {
    const Experiment& e = prepared.experiment;
    std::vector<Quantity> out;
    for (size_t p = 0; p < prepared.points.size(); ++p) {
        for (const std::string& m : metrics) {
            Quantity q;
            q.head = {{"name", m}, {"point", p}, {"params", prepared.points[p].row_params}, {"metric", m}};
            q.value = [p, m](const std::vector<Json>& pts) { return number_of(pts[p], m); };
            out.push_back(std::move(q));
        }
    }
    for (size_t ki = 0; ki < e.sweep.size(); ++ki) {
        const SweepKey& key = e.sweep[ki];
        if (!key.kernel || !is_choice(key)) continue;
        for (size_t p = 0; p < prepared.points.size(); ++p) {
            std::vector<size_t> at = e.sweep_indices(p);
            if (at[ki] != 0) continue;
            for (size_t vi = 1; vi < key.values->size(); ++vi) {
                at[ki] = vi;
                size_t other = 0;
                while (other < prepared.points.size() && e.sweep_indices(other) != at) ++other;
                if (other == prepared.points.size()) continue;
                Json params = prepared.points[p].row_params;
                params.erase(key.name);
                const std::string ratio = fmt::format("{}={}/{}", key.name, value_name(*key.values->get(0)),
                                                      value_name(*key.values->get(vi)));
                for (const std::string& m : metrics) {
                    Quantity q;
                    q.head = {{"name", fmt::format("gain {} {}", ratio, m)},
                              {"points", {p, other}},
                              {"params", params},
                              {"metric", m}};
                    q.value = [p, other, m](const std::vector<Json>& pts) -> std::optional<double> {
                        const auto a = number_of(pts[p], m);
                        const auto b = number_of(pts[other], m);
                        if (!a || !b || *b == 0) return std::nullopt;
                        return *a / *b;
                    };
                    out.push_back(std::move(q));
                }
            }
        }
    }
    return out;
}

Json optional_number(std::optional<double> v) {
    return v ? Json(*v) : Json(nullptr);
}

}  // namespace

size_t SensitivityPlan::runs_to_do() const {
    size_t n = 0;
    for (const auto& m : machines) n += m ? points : 0;
    return n;
}

SensitivityPlan plan_sensitivity(const PreparedExperiment& prepared) {
    SensitivityPlan plan;
    if (prepared.machine) plan.costs = ranged_costs(*prepared.machine->spec);
    plan.points = prepared.points.size();
    plan.machines.push_back(prepare_experiment(prepared.experiment, prepared.machine));
    for (const RangedCost& c : plan.costs) {
        for (double end : {0.0, 1.0}) {
            std::string refused;
            plan.machines.push_back(prepare_variant(prepared, {{c.cost, value_at(c, end)}}, refused));
            (end == 0.0 ? plan.low_refused : plan.high_refused).push_back(refused);
        }
    }
    return plan;
}

std::string sensitivity_run_text(const SensitivityPlan& plan, size_t run) {
    const size_t machine = run / plan.points;
    const std::string which =
        machine == 0 ? "nominal"
                     : fmt::format("{} {}", plan.costs[(machine - 1) / 2].cost->key, machine % 2 == 1 ? "low" : "high");
    return fmt::format("{}, point {}", which, run % plan.points);
}

SensitivityRuns run_sensitivity(SensitivityPlan& plan, unsigned jobs, const SensitivityProgress& progress,
                                RunJournal* journal) {
    SensitivityRuns out;
    out.costs = plan.costs;
    out.low_refused = plan.low_refused;
    out.high_refused = plan.high_refused;
    const size_t points = plan.points;
    const size_t total = plan.runs();
    size_t to_run = 0;
    for (size_t i = 0; i < total; ++i) {
        if (plan.machines[i / points] && (journal == nullptr || journal->find(i) == nullptr)) ++to_run;
    }
    std::mutex lock;
    size_t done = 0;
    const std::vector<Json> metrics = run_parallel<Json>(jobs, total, [&](size_t i) {
        std::optional<PreparedExperiment>& machine = plan.machines[i / points];
        if (const Json* kept = journal != nullptr ? journal->find(i) : nullptr; kept != nullptr) {
            return kept->value("metrics", Json::object());
        }
        if (!machine) return Json::object();
        Json m = run_point(*machine, i % points).metrics;
        if (journal != nullptr) journal->record(i, {{"metrics", m}});
        if (progress) {
            const std::lock_guard<std::mutex> guard(lock);
            progress(++done, to_run, i);
        }
        return m;
    });
    auto slice = [&](size_t machine) {
        return std::vector<Json>(metrics.begin() + static_cast<std::ptrdiff_t>(machine * points),
                                 metrics.begin() + static_cast<std::ptrdiff_t>((machine + 1) * points));
    };
    out.nominal = slice(0);
    for (size_t k = 0; k < out.costs.size(); ++k) {
        out.low.push_back(slice(1 + 2 * k));
        out.high.push_back(slice(2 + 2 * k));
    }
    return out;
}

SensitivityRuns run_sensitivity(const PreparedExperiment& prepared, unsigned jobs,
                                const SensitivityProgress& progress) {
    SensitivityPlan plan = plan_sensitivity(prepared);
    return run_sensitivity(plan, jobs, progress);
}

std::vector<std::string> default_sensitivity_metrics(const PreparedExperiment& prepared,
                                                     const nlohmann::ordered_json& first_point_metrics) {
    const Experiment& e = prepared.experiment;
    std::vector<std::string> out;
    auto add = [&](const std::string& m) {
        if (first_point_metrics.contains(m) && std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    };
    for (const auto& [m, v] : first_point_metrics.items()) {
        const bool shown = e.shape.kind == report::SeedShape::Kind::pivot
                               ? e.shape.value == m
                               : e.shape.line.find("{" + m + "}") != std::string::npos;
        if (shown) add(m);
    }
    for (const report::PublishedRow& row : e.published.rows) {
        for (const auto& [m, v] : row.metrics.items()) add(m);
    }
    if (!out.empty()) return out;
    for (const auto& [m, v] : first_point_metrics.items()) {
        if (v.is_number()) add(m);
    }
    return out;
}

nlohmann::ordered_json sensitivity_json(const PreparedExperiment& prepared, const SensitivityRuns& runs,
                                        const std::vector<std::string>& metrics) {
    const Experiment& e = prepared.experiment;
    Json j;
    j["experiment"] = e.name();
    j["machine"] = prepared.machine ? prepared.machine->spec->name : "";
    j["seed"] = e.seed();
    // The resolved configuration's hash, as its results folder records it (results.json
    // "config_hash"): the HTML report shows a screen beside the results of the same configuration.
    j["config_hash"] = report::text_hash(resolved_toml(prepared));
    j["swept"] = Json::array();
    for (const SweepKey& k : e.sweep) j["swept"].push_back(k.name);
    j["method"] = "one at a time: each ranged cost at its low and at its high end, the others nominal";
    j["costs"] = Json::array();
    for (const RangedCost& c : runs.costs) {
        j["costs"].push_back({{"key", c.cost->key},
                              {"mark", config::to_string(c.cost->provenance.mark)},
                              {"type", config::to_string(c.cost->type)},
                              {"nominal", c.cost->value},
                              {"lo", c.lo},
                              {"hi", c.hi},
                              {"over", c.fit ? "fit interval" : "range"}});
    }
    j["quantities"] = Json::array();
    for (const Quantity& q : quantities(prepared, metrics)) {
        Json out = q.head;
        const std::optional<double> nominal = q.value(runs.nominal);
        out["nominal"] = optional_number(nominal);
        struct Effect {
            size_t cost;
            std::optional<double> low, high;
            double swing;
        };
        std::vector<Effect> effects;
        for (size_t k = 0; k < runs.costs.size(); ++k) {
            Effect f{k, q.value(runs.low[k]), q.value(runs.high[k]), 0};
            f.swing = f.low && f.high ? *f.high - *f.low : 0;
            effects.push_back(f);
        }
        std::stable_sort(effects.begin(), effects.end(),
                         [](const Effect& a, const Effect& b) { return std::abs(a.swing) > std::abs(b.swing); });
        out["effects"] = Json::array();
        for (const Effect& f : effects) {
            Json x = {{"key", runs.costs[f.cost].cost->key},
                      {"low", optional_number(f.low)},
                      {"high", optional_number(f.high)},
                      {"swing", f.swing}};
            x["relative"] = nominal && *nominal != 0 ? Json(f.swing / std::abs(*nominal)) : Json(nullptr);
            if (!runs.low_refused[f.cost].empty()) x["low_refused"] = runs.low_refused[f.cost];
            if (!runs.high_refused[f.cost].empty()) x["high_refused"] = runs.high_refused[f.cost];
            out["effects"].push_back(std::move(x));
        }
        j["quantities"].push_back(std::move(out));
    }
    return j;
}

}  // namespace ipisim::experiment
