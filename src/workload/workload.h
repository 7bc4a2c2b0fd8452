// A workload: the benchmark program a seed experiment runs (ipi_latency, tlb_flush2, ...).
// One run = one point of an experiment's sweep; it reads its parameters strictly and returns
// named metrics plus the engine's fingerprint.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "config/table.h"

namespace ipisim::workload {

struct RunContext {
    uint64_t seed = 1;
    // Directory holding machines/*.toml, so a workload can load the machine an experiment names.
    std::string machines_dir;
    // The experiment's [experiment] machine (empty: the workload's default).
    std::string machine;
};

struct RunResult {
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    uint64_t fingerprint = 0;      // the engine's run fingerprint
    uint64_t events = 0;           // events dispatched
    double simulated_seconds = 0;  // simulated time covered
    // Where CPU time went, perf-report style: {"function (activity)": share of all CPU time},
    // largest first. Optional.
    nlohmann::ordered_json profile = nlohmann::ordered_json::object();
};

class Workload {
public:
    virtual ~Workload() = default;
    // params: this run's parameters (the experiment's [params] with the sweep point applied).
    // Must read every key it accepts and call params.finish(), so unknown keys are errors.
    virtual RunResult run(config::Table& params, const RunContext& ctx) = 0;
};

}  // namespace ipisim::workload
