#include "experiment/targets.h"

#include <fmt/format.h>

#include "config/error.h"
#include "config/schema.h"
#include "config/table.h"
#include "config/toml_json.h"

namespace ipisim::experiment {

namespace {

// The scalar keys of a [[target]]; `at` and `interval` are read beside them.
struct TargetKeys {
    std::optional<std::string> name;
    std::string experiment;
    std::optional<int64_t> point;
    std::string metric;
    double measured = 0;
    std::optional<double> sigma;
};

const config::Schema<TargetKeys>& target_schema() {
    static const auto s =
        config::Schema<TargetKeys>("calibrate.target", "one measured value `ipisim calibrate` fits to")
            .param("name", &TargetKeys::name, "a label for tables and the fitted values' target")
            .param("experiment", &TargetKeys::experiment,
                   "experiment file (relative to the targets file) or name in the experiments folder")
            .param("point", &TargetKeys::point, "the sweep point, from 0 (or `at`; neither: 0)")
            .at_least(0)
            .param("metric", &TargetKeys::metric, "a metric of the experiment's workload")
            .param("measured", &TargetKeys::measured, "the measured value, in the metric's unit")
            .param("sigma", &TargetKeys::sigma, "the measurement's 1-sigma spread (or `interval`)")
            .check([](const TargetKeys& t) {
                return t.sigma && !(*t.sigma > 0) ? std::string("must be greater than 0") : std::string();
            });
    return s;
}
const config::SchemaRegistration schema_reg("calibrate.target", [] { return target_schema().info(); });

int line_of(const toml::node& n) {
    return n.source().path != nullptr ? static_cast<int>(n.source().begin.line) : 0;
}

CalibrationTarget read_target(config::Table& t, size_t index) {
    TargetKeys k;
    config::Conditions conditions;
    target_schema().read_keys(t, k, conditions);
    CalibrationTarget out;
    const std::string prefix = fmt::format("target[{}]", index);
    out.where = {prefix, t.line()};
    out.experiment_at = {t.dotted("experiment"), t.line_of("experiment")};
    out.metric_at = {t.dotted("metric"), t.line_of("metric")};
    out.point_at = {t.dotted(t.has("at") ? "at" : "point"), t.line_of(t.has("at") ? "at" : "point")};
    out.experiment = k.experiment;
    out.point = k.point;
    out.metric = k.metric;
    out.measured = k.measured;
    if (std::optional<config::Table> at = t.table_optional("at")) {
        if (k.point) t.fail("at", "give the point by index (point) or by its swept values (at), not both");
        for (const std::string& key : at->keys()) {
            at->mark_used(key);
            out.at.emplace_back(key, config::to_json(*at->raw(key)));
        }
        if (out.at.empty()) t.fail("at", "names no swept value");
        at->finish();
    }
    if (t.has("interval")) {
        if (k.sigma) t.fail("interval", "give the spread as sigma or as a 5-95% interval, not both");
        const std::vector<double> iv = t.array<double>("interval");
        if (iv.size() != 2) t.fail("interval", fmt::format("must be [low, high], got {} numbers", iv.size()));
        if (!(iv[0] < iv[1])) t.fail("interval", "low must be below high");
        if (!(iv[0] <= k.measured && k.measured <= iv[1])) {
            t.fail("interval", fmt::format("does not hold the measured value {}", k.measured));
        }
        out.sigma = (iv[1] - iv[0]) / kInterval90PerSigma;
    } else if (k.sigma) {
        out.sigma = *k.sigma;
    } else {
        t.fail("sigma", "required key is missing (the measurement's 1-sigma spread, or interval = [p5, p95])");
    }
    out.name = k.name.value_or(fmt::format("{} point {} {}", k.experiment, k.point.value_or(0), k.metric));
    t.finish();
    return out;
}

}  // namespace

TargetsFile load_targets(const std::string& path) {
    const config::Document doc = config::Document::load(path);
    config::Table root = doc.root();
    TargetsFile out;
    out.file = path;
    if (root.has("params")) {
        out.params = root.array<std::string>("params");
        out.params_line = root.line_of("params");
        const toml::array& a = *root.raw("params")->as_array();
        for (size_t i = 0; i < a.size(); ++i) {
            out.params_at.push_back({fmt::format("params[{}]", i), line_of(*a.get(i))});
        }
    }
    if (!root.has("target")) root.fail("target", "required key is missing: at least one [[target]]");
    std::vector<config::Table> targets = root.table_array("target");
    for (size_t i = 0; i < targets.size(); ++i) out.targets.push_back(read_target(targets[i], i));
    root.finish();
    return out;
}

}  // namespace ipisim::experiment
