#include "experiment/uncertainty.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <string>

#include "config/error.h"

#include "experiment/interrupt.h"
#include "experiment/machine_edit.h"
#include "experiment/parallel.h"
#include "sim/rng.h"

namespace ipisim::experiment {

std::vector<RangedCost> ranged_costs(const hw::MachineSpec& spec) {
    std::vector<RangedCost> out;
    for (const config::CostValue& c : spec.costs) {
        if (!c.provenance.range || c.provenance.mark == config::Mark::set) continue;
        RangedCost r;
        r.cost = &c;
        r.fit = c.provenance.fit.has_value();
        const config::Range& over = r.fit ? *c.provenance.fit : *c.provenance.range;
        r.lo = over.lo;
        r.hi = over.hi;
        r.log_scale = r.lo > 0 && r.hi > 10 * r.lo;
        out.push_back(r);
    }
    return out;
}

double value_at(const RangedCost& c, double u) {
    const double v = c.log_scale ? c.lo * std::pow(c.hi / c.lo, u) : c.lo + u * (c.hi - c.lo);
    const double r = representable(c.cost->type, v);
    // Rounding may step past a bound that is not itself whole: the nearest whole value inside.
    if (r < c.lo) return representable(c.cost->type, std::ceil(c.lo));
    if (r > c.hi) return representable(c.cost->type, std::floor(c.hi));
    return r;
}

double position_of(const RangedCost& c, double value) {
    if (!(c.hi > c.lo)) return 0;
    const double u = c.log_scale ? std::log(value / c.lo) / std::log(c.hi / c.lo) : (value - c.lo) / (c.hi - c.lo);
    return std::clamp(u, 0.0, 1.0);
}

std::vector<std::vector<double>> latin_hypercube(size_t costs, size_t n, uint64_t seed, size_t batch) {
    sim::Rng rng =
        sim::Rng::stream(seed, batch == 0 ? std::string("uncertainty") : fmt::format("uncertainty.{}", batch));
    std::vector<std::vector<double>> out(n, std::vector<double>(costs));
    std::vector<size_t> strata(n);
    for (size_t k = 0; k < costs; ++k) {
        for (size_t s = 0; s < n; ++s) strata[s] = s;
        for (size_t s = n; s > 1; --s) std::swap(strata[s - 1], strata[rng.uniform(0, s - 1)]);  // Fisher-Yates
        for (size_t s = 0; s < n; ++s) {
            out[s][k] = (static_cast<double>(strata[s]) + rng.uniform01()) / static_cast<double>(n);
        }
    }
    return out;
}

double quantile(std::vector<double> values, double q) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const double pos = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<size_t>(std::floor(pos));
    const size_t above = std::min(below + 1, values.size() - 1);
    const double frac = pos - static_cast<double>(below);
    return values[below] + frac * (values[above] - values[below]);
}

PointSpread spread_of(const std::vector<nlohmann::ordered_json>& sample_metrics) {
    PointSpread out;
    if (sample_metrics.empty()) return out;
    for (const auto& [metric, first] : sample_metrics.front().items()) {
        std::vector<double> values;
        for (const nlohmann::ordered_json& m : sample_metrics) {
            const auto it = m.find(metric);
            if (it == m.end() || !it->is_number()) break;
            values.push_back(it->get<double>());
        }
        if (values.size() != sample_metrics.size()) continue;  // undefined in some sample: no interval
        out.interval[metric] = {quantile(values, 0.05), quantile(values, 0.95)};
        out.median[metric] = quantile(values, 0.5);
    }
    return out;
}

nlohmann::ordered_json UncertaintyPlan::describe() const {
    nlohmann::ordered_json j;
    j["method"] = "latin hypercube, common random numbers";
    j["samples"] = values.size();
    j["interval"] = "5-95%";
    j["costs"] = nlohmann::ordered_json::array();
    for (const RangedCost& c : costs) {
        j["costs"].push_back({{"key", c.cost->key},
                              {"mark", config::to_string(c.cost->provenance.mark)},
                              {"lo", c.lo},
                              {"hi", c.hi},
                              {"over", c.fit ? "fit interval" : "range"},
                              {"scale", c.log_scale ? "log" : "linear"}});
    }
    return j;
}

UncertaintyPlan plan_uncertainty(const PreparedExperiment& prepared, size_t samples, size_t batch) {
    UncertaintyPlan plan;
    if (!prepared.machine || samples == 0) return plan;
    plan.costs = ranged_costs(*prepared.machine->spec);
    if (plan.costs.empty()) return plan;
    const std::vector<std::vector<double>> u =
        latin_hypercube(plan.costs.size(), samples, prepared.experiment.seed(), batch);
    for (const std::vector<double>& row : u) {
        std::vector<double> v;
        for (size_t k = 0; k < plan.costs.size(); ++k) v.push_back(value_at(plan.costs[k], row[k]));
        plan.values.push_back(std::move(v));
    }
    return plan;
}

namespace {

// The experiment prepared on sampled machine `s` of its plan, or nullopt (and why) when the
// machine's own checks refuse the combination (a router service longer than a delivery it is
// part of): such a machine cannot exist, so it is left out.
std::optional<PreparedExperiment> prepare_sample(const PreparedExperiment& nominal, const UncertaintyPlan& plan,
                                                 size_t s, std::string& refused) {
    std::vector<CostSetting> settings;
    for (size_t k = 0; k < plan.costs.size(); ++k) settings.push_back({plan.costs[k].cost, plan.values[s][k]});
    return prepare_variant(nominal, settings, refused);
}

}  // namespace

std::optional<PreparedExperiment> prepare_variant(const PreparedExperiment& nominal,
                                                  const std::vector<CostSetting>& settings, std::string& refused) {
    LoadedMachine machine;
    machine.document = with_costs(nominal.machine->document, settings);
    try {
        machine.spec =
            std::make_shared<const hw::MachineSpec>(hw::load_machine(machine.document, nominal.machine->spec->name));
        return prepare_experiment(nominal.experiment, std::move(machine));
    } catch (const config::ConfigError& e) {
        refused = fmt::format("{}: {}", e.key(), e.problem());
        return std::nullopt;
    }
}

void run_uncertainty(const std::vector<PreparedExperiment*>& experiments, size_t samples, unsigned jobs,
                     const std::function<void(size_t done, size_t total)>& progress, size_t max_batches,
                     const SampleJournalOpener& open_journal) {
    struct Job {
        size_t experiment;
        size_t sample;
        size_t point;
    };
    std::vector<UncertaintyPlan> plans;
    std::vector<std::vector<PreparedExperiment>> variants(experiments.size());  // [experiment][feasible sample]
    std::vector<std::vector<size_t>> sample_of(experiments.size());  // [experiment][feasible] -> drawn sample
    std::vector<nlohmann::ordered_json> refusals(experiments.size(), nlohmann::ordered_json::array());
    std::vector<size_t> drawn(experiments.size(), 0);
    std::vector<Job> jobs_list;
    for (size_t x = 0; x < experiments.size(); ++x) {
        plans.push_back(plan_uncertainty(*experiments[x], samples));
        UncertaintyPlan later;  // batches 1, 2, ...
        for (size_t batch = 0; batch < max_batches && variants[x].size() < samples; ++batch) {
            if (batch > 0) later = plan_uncertainty(*experiments[x], samples, batch);
            const UncertaintyPlan& plan = batch == 0 ? plans.back() : later;
            for (size_t s = 0; s < plan.values.size() && variants[x].size() < samples; ++s) {
                const size_t sample = batch * samples + s;
                ++drawn[x];
                std::string refused;
                std::optional<PreparedExperiment> v = prepare_sample(*experiments[x], plan, s, refused);
                if (!v) {
                    refusals[x].push_back({{"sample", sample}, {"problem", refused}});
                    continue;
                }
                // One run per machine whatever the experiment's [experiment] runs = N, the i-th
                // machine used with the seed of run i mod N: the samples cover the nominal row's
                // seeds, and the spread holds one run's noise too (docs/uncertainty.md).
                const size_t index = variants[x].size();
                const int64_t runs = v->experiment.table.runs;
                v->experiment.table.seed += static_cast<int64_t>(index) % runs;
                v->experiment.table.runs = 1;
                variants[x].push_back(std::move(*v));
                sample_of[x].push_back(sample);
                for (size_t k = 0; k < experiments[x]->points.size(); ++k) jobs_list.push_back(Job{x, index, k});
            }
        }
    }
    // Each sample run's metrics, and its checker verdict (ResultRow::check) when the monitors
    // found a violation: a sampled machine that deadlocks must not pass as a slow one.
    struct SampleRun {
        nlohmann::ordered_json metrics;
        nlohmann::ordered_json check;
    };
    // Every finished sample run goes to its experiment's journal at once (an interrupt keeps them).
    std::vector<std::unique_ptr<RunJournal>> journals(experiments.size());
    std::vector<std::optional<InterruptScope>> interruptible(experiments.size());
    for (size_t x = 0; x < experiments.size() && open_journal; ++x) {
        if (variants[x].empty()) continue;
        journals[x] = open_journal(x, variants[x].size() * experiments[x]->points.size());
        if (journals[x]) interruptible[x].emplace(*journals[x]);
    }
    std::mutex lock;
    size_t done = 0;
    const std::vector<SampleRun> runs = run_parallel<SampleRun>(jobs, jobs_list.size(), [&](size_t i) {
        const Job& j = jobs_list[i];
        RunJournal* journal = journals[j.experiment].get();
        const size_t run = j.sample * experiments[j.experiment]->points.size() + j.point;
        SampleRun out;
        if (const nlohmann::ordered_json* kept = journal != nullptr ? journal->find(run) : nullptr; kept != nullptr) {
            out = SampleRun{kept->value("metrics", nlohmann::ordered_json::object()),
                            kept->value("check", nlohmann::ordered_json())};
        } else {
            report::ResultRow row = run_point(variants[j.experiment][j.sample], j.point);
            nlohmann::ordered_json check;
            if (row.check.contains("first")) check = std::move(row.check);
            out = SampleRun{std::move(row.metrics), std::move(check)};
            if (journal != nullptr) {
                nlohmann::ordered_json entry = {{"metrics", out.metrics}};
                if (!out.check.is_null()) entry["check"] = out.check;
                journal->record(run, entry);
            }
        }
        if (progress) {
            const std::lock_guard<std::mutex> guard(lock);
            progress(++done, jobs_list.size());
        }
        return out;
    });
    // Gather per experiment and point, in job order (experiment, sample, point).
    size_t i = 0;
    for (size_t x = 0; x < experiments.size(); ++x) {
        PreparedExperiment& e = *experiments[x];
        const size_t n = variants[x].size();
        e.spreads.clear();
        e.uncertainty = nlohmann::ordered_json::object();
        if (plans[x].values.empty()) continue;
        e.uncertainty = plans[x].describe();
        e.uncertainty["drawn"] = drawn[x];
        e.uncertainty["feasible"] = n;
        if (!refusals[x].empty()) e.uncertainty["refused"] = refusals[x];
        std::vector<std::vector<nlohmann::ordered_json>> by_point(e.points.size());
        nlohmann::ordered_json violations = nlohmann::ordered_json::array();
        for (size_t s = 0; s < n; ++s) {
            for (size_t k = 0; k < e.points.size(); ++k) {
                const SampleRun& r = runs[i++];
                by_point[k].push_back(r.metrics);
                if (!r.check.is_null()) {
                    violations.push_back({{"sample", sample_of[x][s]}, {"point", k}, {"check", r.check}});
                }
            }
        }
        if (!violations.empty()) e.uncertainty["violations"] = std::move(violations);
        if (n < 2) continue;  // too few machines for an interval (their runs are consumed above)
        for (const auto& m : by_point) e.spreads.push_back(spread_of(m));
    }
}

}  // namespace ipisim::experiment
