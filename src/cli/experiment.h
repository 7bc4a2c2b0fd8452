// An experiment file (experiments/*.toml), loaded strictly:
//
//   [experiment]
//   name = "ipi_ping_scaling"        # required; names the default output directory
//   description = "..."              # optional
//   workload = "ipi_ping"            # required; a registered workload
//   seed = 1                         # optional, default 1
//   machine = "kunpeng920"           # optional; machines/<machine>.toml
//
//   [params]                         # the workload's parameters; it reads them strictly
//   cpus = 4
//   duration = "1 ms"
//
//   [sweep]                          # optional; cartesian product, first key outermost
//   cpus = [2, 4, 8]                 # each key must be a key of [params]
//
//   [published]                      # optional reference values, shown beside predictions
//   source = "seed 000, table 1"
//   [[published.rows]]
//   params = { cpus = 8 }            # matches the sweep points with these parameter values
//   metrics = { latency_ns = 1234 }  # numbers, named like the workload's metrics
//   note = "..."                     # optional
//
//   [report]                         # optional: the seed's own table shape (report/seed_shape.h)
//
// `--set key=value` overrides any value before validation; `--seed N` is `--set experiment.seed=N`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/table.h"
#include "report/published.h"
#include "report/seed_shape.h"

namespace ipisim::cli {

struct Experiment {
    std::string file;  // as given; every message names it
    std::string name;
    std::string description;
    std::string workload;
    std::string machine;       // empty: the workload's default
    std::string machine_file;  // where `machine` is set: the file, or "--set"
    int machine_line = 0;
    uint64_t seed = 1;
    std::vector<std::string> param_keys;  // [params] keys in file order (then --set additions)
    std::vector<std::string> swept;       // [sweep] keys in file order
    std::vector<size_t> sweep_sizes;      // values per key
    report::Published published;
    report::SeedShape shape;  // [report]: the seed's own table shape

    // The experiment's file text and overrides, so each sweep point re-reads them with their
    // source lines (TOML copies lose them).
    std::string text;
    std::vector<std::string> overrides;

    // Number of sweep points (1 without [sweep]).
    [[nodiscard]] size_t points() const;
};

// Reads and validates the file with the overrides applied ("key=value", in order). Every
// mistake is a config::ConfigError naming file (or "--set"), line and key.
Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides);

// Index into each [sweep] key's values at a point; the first key is the outermost loop.
std::vector<size_t> sweep_indices(const Experiment& experiment, size_t point);

// The document of one sweep point: the file with overrides applied, defaults filled in, and
// the point's sweep values moved into [params] (keeping the lines of the [sweep] values).
config::Document point_document(const Experiment& experiment, size_t point);

// The fully resolved configuration (overrides applied, defaults filled in) as TOML text.
std::string resolved_toml(const Experiment& experiment);

}  // namespace ipisim::cli
