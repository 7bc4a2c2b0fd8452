// The targets file of `ipisim calibrate` (docs/uncertainty.md, "calibrate"): which measured
// microbenchmark values a machine's costs are fitted to, and which costs are fitted.
//
//   params = ["coherence.same_l3", "cpu.irq_entry"]   # costs of the machine to fit (A or F, ranged)
//
//   [[target]]
//   name = "idle rtt"                      # a label for tables and the fitted values' target (optional)
//   experiment = "micro_ipi_rtt"           # a file next to this one, or a name in the experiments folder
//   point = 0                              # the sweep point by index, or by its swept values:
//   # at = { target_state = "busy" }       #   (exactly one of point / at; neither: point 0)
//   metric = "rtt_ns"                      # a metric the experiment's workload reports
//   measured = 1750.0                      # in the metric's unit
//   sigma = 20.0                           # the measurement's 1-sigma spread, or instead:
//   # interval = [1720.0, 1790.0]          #   its 5-95% interval: sigma = (hi - lo) / 3.29
//
// Reading is strict (config::Schema): unknown keys, wrong types, a NaN or infinite number, a
// non-positive spread, both or neither of sigma / interval, are ConfigErrors at FILE:LINE: key.
// Whether the experiment, point and metric exist, and whether each parameter may be fitted, is
// checked against the experiments and the machine (experiment/calibrate.h), located here too.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ipisim::experiment {

// A located key of the targets file, for errors found after reading.
struct TargetsLocation {
    std::string key;  // dotted: "target[1].metric", "params[0]"
    int line = 0;
};

struct CalibrationTarget {
    std::string name;
    std::string experiment;  // as written
    std::optional<int64_t> point;
    std::vector<std::pair<std::string, nlohmann::ordered_json>> at;  // swept key -> value
    std::string metric;
    double measured = 0;
    double sigma = 0;       // 1 sigma, from `sigma` or `interval`
    TargetsLocation where;  // the [[target]] table
    TargetsLocation experiment_at, point_at, metric_at;
};

struct TargetsFile {
    std::string file;  // as given; every message names it
    std::vector<std::string> params;
    std::vector<TargetsLocation> params_at;  // one per parameter
    int params_line = 0;                     // the `params` key (0: absent)
    std::vector<CalibrationTarget> targets;
};

// The ratio of a normal distribution's 5-95% interval to its sigma: 2 x 1.6449.
inline constexpr double kInterval90PerSigma = 3.2897;

TargetsFile load_targets(const std::string& path);

}  // namespace ipisim::experiment
