#include "experiment/calibrate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlopt.hpp>

#include "config/error.h"
#include "config/suggest.h"
#include "config/writer.h"
#include "experiment/machine_edit.h"
#include "experiment/parallel.h"

namespace ipisim::experiment {

namespace {

// The objective of a machine the model refuses or of an undefined target: far above any fit
// (a fit's objective is of the order of the number of targets), finite for the optimizer.
constexpr double kPenalty = 1e12;

[[noreturn]] void fail_at(const TargetsFile& f, const TargetsLocation& at, const std::string& problem) {
    throw config::ConfigError(f.file, at.line, at.key, problem);
}

// The experiment file a target names: next to the targets file, else in the experiments folder.
std::string find_experiment(const TargetsFile& f, const CalibrationTarget& t, const std::string& experiments_dir) {
    const std::filesystem::path here = std::filesystem::path(f.file).parent_path();
    std::error_code ec;
    for (const std::filesystem::path& dir : {here, std::filesystem::path(experiments_dir)}) {
        for (const std::string& name : {t.experiment, t.experiment + ".toml"}) {
            const std::filesystem::path p = dir / name;
            if (std::filesystem::is_regular_file(p, ec)) return p.lexically_normal().string();
        }
    }
    fail_at(f, t.experiment_at,
            fmt::format("no experiment file \"{}\" next to the targets file or in {}", t.experiment, experiments_dir));
}

size_t find_point(const TargetsFile& f, const CalibrationTarget& t, const PreparedExperiment& e) {
    if (t.at.empty()) {
        const auto p = static_cast<size_t>(t.point.value_or(0));
        if (p >= e.points.size()) {
            fail_at(f, t.point_at,
                    fmt::format("experiment {} has points 0-{}", e.experiment.name(), e.points.size() - 1));
        }
        return p;
    }
    for (size_t p = 0; p < e.points.size(); ++p) {
        const nlohmann::ordered_json& row = e.points[p].row_params;
        bool all = true;
        for (const auto& [key, value] : t.at) {
            const auto it = row.find(key);
            if (it == row.end()) {
                std::vector<std::string> names;
                for (const auto& [k, v] : row.items()) names.push_back(k);
                fail_at(f, t.point_at,
                        fmt::format("experiment {} has no parameter \"{}\"{}", e.experiment.name(), key,
                                    config::did_you_mean(key, names)));
            }
            all = all && *it == value;
        }
        if (all) return p;
    }
    fail_at(f, t.point_at, fmt::format("no point of experiment {} has these values", e.experiment.name()));
}

void check_metric(const TargetsFile& f, const CalibrationTarget& t, const PreparedExperiment& e) {
    std::vector<std::string> names;
    for (const config::ParamInfo& m : e.experiment.workload.metrics.params) names.push_back(m.key);
    if (std::find(names.begin(), names.end(), t.metric) == names.end()) {
        fail_at(f, t.metric_at,
                fmt::format("the {} workload has no metric \"{}\"{} (it has: {})", e.experiment.table.workload,
                            t.metric, config::did_you_mean(t.metric, names), fmt::join(names, ", ")));
    }
}

// The cost `key` of the machine as a fitted parameter, or the reason it cannot be one.
RangedCost fit_param(const hw::MachineSpec& spec, const std::string& machine_file, const std::string& key,
                     const std::function<void(const std::string&)>& fail) {
    const config::CostValue* c = spec.cost(key);
    if (c == nullptr) {
        std::vector<std::string> names;
        for (const config::CostValue& v : spec.costs) names.push_back(v.key);
        fail(fmt::format("is not a cost of machine {}{}", spec.name, config::did_you_mean(key, names)));
    }
    const std::string at = c->line > 0 ? fmt::format("{}:{}", machine_file, c->line) : machine_file;
    const config::Mark m = c->provenance.mark;
    if (m == config::Mark::P || m == config::Mark::D) {
        fail(
            fmt::format("is marked {} at {} ({}): only A (assumed) or F (fitted) costs are fitted "
                        "(docs/calibration.md)",
                        config::to_string(m), at, m == config::Mark::P ? "published" : "derived"));
    }
    if (m != config::Mark::A && m != config::Mark::F) {
        fail(fmt::format("has no mark and no range at {}: mark it A with a plausible range to fit it", at));
    }
    if (!c->provenance.range || !(c->provenance.range->lo < c->provenance.range->hi)) {
        fail(fmt::format("has no range to fit within at {}", at));
    }
    if (c->type != config::ParamType::duration && c->type != config::ParamType::frequency &&
        c->type != config::ParamType::number && c->type != config::ParamType::integer) {
        fail(fmt::format("is not a number at {}", at));
    }
    RangedCost r;
    r.cost = c;
    r.lo = c->provenance.range->lo;
    r.hi = c->provenance.range->hi;
    r.log_scale = r.lo > 0 && r.hi > 10 * r.lo;
    return r;
}

std::optional<double> number_of(const nlohmann::ordered_json& metrics, const std::string& m) {
    const auto it = metrics.find(m);
    if (it == metrics.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

std::string stop_text(nlopt::result r) {
    switch (r) {
        case nlopt::SUCCESS:
            return "converged";
        case nlopt::STOPVAL_REACHED:
            return "objective below the stop value";
        case nlopt::FTOL_REACHED:
            return "converged (objective change below tolerance)";
        case nlopt::XTOL_REACHED:
            return "converged (parameter change below tolerance)";
        case nlopt::MAXEVAL_REACHED:
            return "maximum evaluations reached";
        case nlopt::MAXTIME_REACHED:
            return "maximum time reached";
        case nlopt::ROUNDOFF_LIMITED:
            return "stopped by round-off (the objective is flat at the simulator's resolution)";
        default:
            return fmt::format("NLopt result {}", static_cast<int>(r));
    }
}

// A target's spread-normalized residual (predicted - measured) / sigma.
double residual(const CalibrationTarget& target, double predicted) {
    return (predicted - target.measured) / target.sigma;
}

// The spread-normalized residuals of an evaluation; nullopt when it was refused or a target is
// undefined.
std::optional<std::vector<double>> residuals_of(const CalibrationSetup& setup, const Evaluation& e) {
    if (!e.refused.empty()) return std::nullopt;
    std::vector<double> z;
    for (size_t t = 0; t < setup.bound.size(); ++t) {
        if (!e.predicted[t]) return std::nullopt;
        z.push_back(residual(setup.targets.targets[t], *e.predicted[t]));
    }
    return z;
}

// Each parameter's fit interval, none where the targets do not determine it.
std::vector<std::optional<config::Range>> fit_intervals(const CalibrationSetup& setup, const CalibrationResult& r) {
    std::vector<std::optional<config::Range>> out;
    for (size_t i = 0; i < setup.params.size(); ++i) {
        out.push_back(i < r.spread.params.size() ? r.spread.params[i].interval : std::nullopt);
    }
    return out;
}

// What the targets leave open around r.after's values (r.spread).
void add_spread(const CalibrationSetup& setup, const CalibrateOptions& options, CalibrationResult& r) {
    const std::optional<std::vector<double>> at_fit = residuals_of(setup, r.after);
    if (!at_fit) return;
    r.spread = fit_uncertainty(
        setup.params, r.after.values, *at_fit,
        [&](const std::vector<double>& values) { return residuals_of(setup, evaluate(setup, values, options.jobs)); },
        options.jacobian_step);
}

}  // namespace

std::string cost_text(config::ParamType type, double value) {
    switch (type) {
        case config::ParamType::duration:
            return config::duration_text(sim::Picos(static_cast<uint64_t>(std::llround(value))));
        case config::ParamType::frequency:
            return config::frequency_text(sim::ClockDomain(static_cast<uint64_t>(std::llround(value))));
        default:
            return fmt::format("{}", value);
    }
}

CalibrationSetup prepare_calibration(const std::string& machine_file, const TargetsFile& targets,
                                     const std::vector<std::string>& params_override,
                                     const std::string& experiments_dir) {
    CalibrationSetup s;
    s.machine_file = machine_file;
    s.targets = targets;
    s.machine.document = config::Document::load(machine_file);
    s.machine.spec = std::make_shared<const hw::MachineSpec>(
        hw::load_machine(s.machine.document, std::filesystem::path(machine_file).stem().string()));
    const TargetsFile& f = s.targets;

    // The parameters: from --params, else the file's `params`.
    const bool from_flag = !params_override.empty();
    const std::vector<std::string>& names = from_flag ? params_override : f.params;
    if (names.empty()) {
        throw config::ConfigError(f.file, f.params_line > 0 ? f.params_line : 1, "params",
                                  "names no cost to fit: give params = [\"key\", ...] here or --params a,b");
    }
    for (size_t i = 0; i < names.size(); ++i) {
        const auto fail = [&](const std::string& problem) {
            if (from_flag) throw config::ConfigError("--params", 0, names[i], problem);
            fail_at(f, f.params_at[i], fmt::format("{} {}", names[i], problem));
        };
        for (size_t j = 0; j < i; ++j) {
            if (names[j] == names[i]) fail("is named twice");
        }
        s.params.push_back(fit_param(*s.machine.spec, machine_file, names[i], fail));
    }

    // The experiments, each prepared once on the machine, and each target's point and metric.
    std::map<std::string, size_t> by_file;
    for (const CalibrationTarget& t : f.targets) {
        const std::string path = find_experiment(f, t, experiments_dir);
        auto [it, fresh] = by_file.emplace(path, s.experiments.size());
        if (fresh) {
            const Experiment e = load_experiment(path, {});
            if (!e.has_machine()) {
                fail_at(f, t.experiment_at,
                        fmt::format("the {} workload runs without a machine: no cost moves it", e.table.workload));
            }
            s.experiments.push_back(prepare_experiment(e, s.machine));
        }
        const PreparedExperiment& e = s.experiments[it->second];
        check_metric(f, t, e);
        s.bound.push_back({it->second, find_point(f, t, e), t.metric});
    }
    return s;
}

Evaluation evaluate(const CalibrationSetup& setup, const std::vector<double>& values, unsigned jobs) {
    Evaluation out;
    out.values = values;
    out.predicted.assign(setup.bound.size(), std::nullopt);
    std::vector<CostSetting> settings;
    for (size_t i = 0; i < setup.params.size(); ++i) settings.push_back({setup.params[i].cost, values[i]});
    std::vector<PreparedExperiment> variants;
    for (const PreparedExperiment& e : setup.experiments) {
        std::optional<PreparedExperiment> v = prepare_variant(e, settings, out.refused);
        if (!v) {
            out.objective = kPenalty;
            return out;
        }
        variants.push_back(std::move(*v));
    }
    // Each (experiment, point) the targets need runs once.
    std::vector<std::pair<size_t, size_t>> runs;
    std::vector<size_t> run_of;
    for (const CalibrationSetup::Bound& b : setup.bound) {
        const std::pair<size_t, size_t> key{b.experiment, b.point};
        auto it = std::find(runs.begin(), runs.end(), key);
        run_of.push_back(static_cast<size_t>(it - runs.begin()));
        if (it == runs.end()) runs.push_back(key);
    }
    const std::vector<nlohmann::ordered_json> metrics = run_parallel<nlohmann::ordered_json>(
        jobs, runs.size(), [&](size_t i) { return run_point(variants[runs[i].first], runs[i].second).metrics; });
    for (size_t t = 0; t < setup.bound.size(); ++t) {
        out.predicted[t] = number_of(metrics[run_of[t]], setup.bound[t].metric);
        if (!out.predicted[t]) {
            out.objective += kPenalty;
            continue;
        }
        const double z = residual(setup.targets.targets[t], *out.predicted[t]);
        out.objective += z * z;
    }
    return out;
}

CalibrationResult calibrate(const CalibrationSetup& setup, const CalibrateOptions& options) {
    CalibrationResult r;
    const size_t k = setup.params.size();
    std::vector<double> start;
    std::vector<double> u(k);
    for (size_t i = 0; i < k; ++i) {
        start.push_back(setup.params[i].cost->value);
        u[i] = position_of(setup.params[i], start[i]);
    }
    r.before = evaluate(setup, start, options.jobs);
    r.after = r.before;
    r.evaluations = 1;
    if (!options.optimize) {
        r.optimized = false;
        r.stop = "no fit asked for (--interval-only): the present values";
        add_spread(setup, options, r);
        return r;
    }

    // Minimized over the positions in [0, 1] of each range (log-scaled for ranges > 10x).
    struct Context {
        const CalibrationSetup& setup;
        const CalibrateOptions& options;
        CalibrationResult& r;
    } ctx{setup, options, r};
    nlopt::opt opt(nlopt::LN_BOBYQA, static_cast<unsigned>(k));
    opt.set_lower_bounds(0.0);
    opt.set_upper_bounds(1.0);
    opt.set_maxeval(std::max(1, options.max_evaluations - 1));
    opt.set_xtol_abs(1e-6);
    opt.set_ftol_abs(1e-6);
    opt.set_initial_step(0.1);
    opt.set_min_objective(
        [](const std::vector<double>& x, std::vector<double>& /*grad*/, void* data) {
            Context& c = *static_cast<Context*>(data);
            std::vector<double> values;
            for (size_t i = 0; i < x.size(); ++i) values.push_back(value_at(c.setup.params[i], x[i]));
            Evaluation e = evaluate(c.setup, values, c.options.jobs);
            ++c.r.evaluations;
            const double objective = e.objective;
            if (objective < c.r.after.objective) c.r.after = std::move(e);  // the best so far; ties keep the first
            return objective;
        },
        &ctx);
    double best = 0;
    try {
        r.stop = stop_text(opt.optimize(u, best));
    } catch (const nlopt::roundoff_limited&) {
        r.stop = stop_text(nlopt::ROUNDOFF_LIMITED);
    }

    add_spread(setup, options, r);
    return r;
}

std::string fitted_machine_text(const CalibrationSetup& setup, const CalibrationResult& result) {
    if (!result.optimized) {
        // --interval-only: the fitted values and their provenance stay; only `fit` is new.
        std::vector<const config::CostValue*> costs;
        for (const RangedCost& p : setup.params) costs.push_back(p.cost);
        const config::Document edited = with_fit_intervals(setup.machine.document, costs, fit_intervals(setup, result));
        return fmt::format(
                   "# Machine file written by `ipisim calibrate --interval-only` from {} and the targets {}:\n"
                   "# the 95% intervals (fit) those targets give {} fitted cost(s) at their values; sum of squared "
                   "spread-normalized residuals {}.\n",
                   std::filesystem::path(setup.machine_file).filename().string(),
                   std::filesystem::path(setup.targets.file).filename().string(), setup.params.size(),
                   fmt::format("{:.4g}", result.after.objective)) +
               config::to_toml_text(edited.tree());
    }
    std::vector<CostSetting> settings;
    std::vector<std::string> sources;
    const std::string targets_name = std::filesystem::path(setup.targets.file).filename().string();
    std::vector<std::string> target_names;
    for (const CalibrationTarget& t : setup.targets.targets) target_names.push_back(t.name);
    for (size_t i = 0; i < setup.params.size(); ++i) {
        const config::CostValue& c = *setup.params[i].cost;
        settings.push_back({&c, result.after.values[i]});
        sources.push_back(fmt::format("fitted by ipisim calibrate (was {} {}: {})",
                                      config::to_string(c.provenance.mark), cost_text(c.type, c.value),
                                      c.provenance.source));
    }
    const std::string target = fmt::format("calibrate: {}: {}", targets_name, fmt::join(target_names, "; "));
    const config::Document fitted =
        with_fitted(setup.machine.document, settings, target, sources, fit_intervals(setup, result));
    std::string out = fmt::format(
        "# Machine file written by `ipisim calibrate` from {} and the targets {}:\n"
        "# {} cost(s) fitted (mark F) to {} target(s); sum of squared spread-normalized residuals {} -> {}.\n",
        std::filesystem::path(setup.machine_file).filename().string(), targets_name, setup.params.size(),
        setup.targets.targets.size(), fmt::format("{:.4g}", result.before.objective),
        fmt::format("{:.4g}", result.after.objective));
    return out + config::to_toml_text(fitted.tree());
}

}  // namespace ipisim::experiment
