// An experiment file (experiments/*.toml), loaded strictly and parsed once:
//
//   [experiment]
//   name = "seed000_rar"             # required; names the default output directory
//   description = "..."              # optional
//   workload = "tlb_flush2"          # required; a registered workload
//   seed = 1                         # optional, default 1
//   runs = 4                         # optional, default 1: runs per point (seeds seed..seed+3), metrics averaged
//   machine = "sapphire_rapids_30c"  # machines/<machine>.toml, unless [machine] embeds it
//
//   [machine]                        # optional: the machine itself (a machine file's tables)
//
//   [kernel]                         # the simulated Linux (kernel/kernel_config.h)
//   version = "6.18"
//
//   [params]                         # the workload's parameters (`ipisim list --params W`)
//   threads = 1
//
//   [sweep]                          # optional; cartesian product, first key outermost
//   threads = [1, 5, 10]             # a bare key sweeps a [params] key,
//   kernel.tlb_flush = ["ipi", "rar-naive"]   # kernel.X sweeps [kernel] X
//
//   [published]                      # optional reference values, shown beside predictions
//   source = "seed 000, table 1"
//   setup = { mode = "threads" }     # optional: values every row was measured with
//   [[published.rows]]
//   params = { threads = 5, kernel.tlb_flush = "ipi" }  # matches rows with these values
//   metrics = { loops_per_sec = 337000 }                # numbers, named like the metrics
//   note = "..."                                        # optional
//
//   [report]                         # optional: the seed's own table shape (report/seed_shape.h)
//
// Results rows name their parameters like the sweep: [params] keys bare, [kernel] keys as
// "kernel.X". `--set key=value` overrides any value before validation (`--set
// machine.KEY=VALUE` a value of the machine); `--seed N` is `--set experiment.seed=N`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/schema.h"
#include "config/table.h"
#include "report/published.h"
#include "report/seed_shape.h"
#include "workload/workload.h"

namespace ipisim::experiment {

// [experiment], as declared (registered in config::schema_catalog() as "experiment").
struct ExperimentTable {
    std::string name;
    std::string description;
    std::string workload;
    int64_t seed = 1;
    // Runs of every point: run r uses seed + r; the row's metrics are their mean (a published
    // "average of N runs"), the first run gives its profile, latencies and trace.
    int64_t runs = 1;
    std::optional<std::string> machine;
    // A point whose CPUs retire no work for this long while some of them wait or spin is
    // stopped as a no-progress violation (check/progress.h).
    sim::Picos no_progress_bound;
};
const config::Schema<ExperimentTable>& experiment_schema();

// One [sweep] key and its values (in the experiment's document).
struct SweepKey {
    bool kernel = false;  // sweeps a [kernel] key (sweep.kernel.X), else a [params] key
    std::string key;      // the key in its section: "threads", "tlb_flush"
    std::string name;     // as rows name it: "threads", "kernel.tlb_flush"
    std::string path;     // "sweep.threads", "sweep.kernel.tlb_flush"
    const toml::array* values = nullptr;
};

struct Experiment {
    std::string file;  // as given; every message names it
    ExperimentTable table;
    std::string machine_file;  // where experiment.machine is set (the file, or "--set") ...
    int machine_line = 0;      // ... or, when unset, where [experiment] is
    workload::WorkloadInfo workload;
    std::vector<std::string> param_keys;   // [params] keys in file order (then --set additions)
    std::vector<std::string> kernel_keys;  // [kernel] keys, likewise
    std::vector<SweepKey> sweep;           // outermost first
    report::Published published;
    report::SeedShape shape;

    // The file parsed once, overrides applied: every point's tables are views of it, so each
    // value keeps its source line.
    config::Document document;
    // An embedded [machine], moved out of the document (moved nodes keep their lines), with
    // the machine overrides applied.
    std::optional<config::Document> embedded_machine;
    // `--set machine.KEY=VALUE` overrides as "KEY=VALUE", for the machine's document.
    std::vector<std::string> machine_overrides;
    // The setup the file itself describes, before any --set: what published values apply to
    // (report::PublishedScope).
    report::PublishedScope file_setup;

    [[nodiscard]] const std::string& name() const { return table.name; }
    [[nodiscard]] uint64_t seed() const { return static_cast<uint64_t>(table.seed); }
    [[nodiscard]] uint32_t runs() const { return static_cast<uint32_t>(table.runs); }
    // Number of sweep points (1 without [sweep]).
    [[nodiscard]] size_t points() const;
    // Index into each sweep key's values at a point; the first key is the outermost loop.
    [[nodiscard]] std::vector<size_t> sweep_indices(size_t point) const;
    // The names rows give their parameters: [params] keys, swept [params] keys not in
    // [params], then "kernel.X" for [kernel] keys and swept [kernel] keys.
    [[nodiscard]] std::vector<std::string> row_params() const;
    [[nodiscard]] bool has_machine() const { return workload.traits.needs_machine; }
};

// Reads and validates the file with the overrides applied ("key=value", in order). Every
// mistake is a config::ConfigError naming file (or "--set"), line and key.
Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides);
// The same for an experiment made in memory (`ipisim validate host`); messages name
// document.name() as the file.
Experiment load_experiment(config::Document document, const std::vector<std::string>& overrides);

// A point's [params] and [kernel]: views of the document with the point's sweep values in
// place (their messages name the [sweep] value, e.g. "sweep.threads[2]", at its line).
struct PointTables {
    config::Table params;
    config::Table kernel;
};
PointTables point_tables(const Experiment& e, size_t point);
// The file's own [params] and [kernel]; swept keys they lack take their first sweep value.
PointTables base_tables(const Experiment& e);

// The row parameters of a point (row_params() with the point's values).
nlohmann::ordered_json row_params(const Experiment& e, const PointTables& point);

}  // namespace ipisim::experiment
