// The outcome of one experiment: one row per sweep point, and the run fingerprint over them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ipisim::report {

struct ResultRow {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();   // every parameter
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();  // as the workload named them
    // Metrics the point cannot define (0/0): null in `metrics`, and here the reason.
    nlohmann::ordered_json undefined = nlohmann::ordered_json::object();
    nlohmann::ordered_json profile = nlohmann::ordered_json::object();  // {"function (activity)": CPU-time share}
    // {"flush_tlb_mm_range": {"count", "p50_ns", "p90_ns", "p99_ns", "max_ns"}, ...} (report/latency.h)
    nlohmann::ordered_json latency = nlohmann::ordered_json::object();
    // The metrics of the published row matching this point (report/published.h); empty if none.
    nlohmann::ordered_json published = nlohmann::ordered_json::object();
    // {"metric": [lo, hi]}: an interval around a prediction, when the run computes one.
    nlohmann::ordered_json metrics_interval = nlohmann::ordered_json::object();
    // {"metric": median} of the same samples (the nominal run stays `metrics`).
    nlohmann::ordered_json metrics_median = nlohmann::ordered_json::object();
    // {"metric": [run 0, run 1, ...]} when the point ran more than once ([experiment] runs):
    // `metrics` holds their mean.
    nlohmann::ordered_json metrics_runs = nlohmann::ordered_json::object();
    uint64_t fingerprint = 0;  // the engine's fingerprint
    uint64_t events = 0;
    double simulated_seconds = 0;
    // The checker's monitors (docs/checker.md): {"violations": N, "first": {...}} when it ran.
    nlohmann::ordered_json check = nlohmann::ordered_json::object();
    size_t point = 0;  // the sweep point (index in sweep order)
};

struct ExperimentResults {
    std::string experiment;
    std::string description;
    std::string machine;              // the machine file's name ("sapphire_rapids_30c"); empty: the workload's own
    std::string machine_description;  // the machine's own description ("Sapphire Rapids 30c/60t")
    std::string machine_hash;         // FNV-1a of the resolved machine as config.toml writes it (16 hex)
    std::string kernel;               // the simulated kernel's version ("6.18"); empty without a machine
    std::string ipisim_version;       // of the binary that ran ("0.1.0")
    std::string git_commit;           // `git describe` of its source tree, or "unknown"
    uint64_t seed = 1;
    uint32_t runs = 1;               // [experiment] runs: each point ran with seeds seed .. seed + runs - 1
    std::vector<std::string> swept;  // the [sweep] keys, in file order
    std::vector<ResultRow> rows;     // in sweep order
    std::string published_source;    // where the rows' published values come from
    std::string published_note;      // why some rows are not compared with them, else empty
    // The seed's own table shape ([report], report/seed_shape.h) as JSON (report/shape_json.h),
    // so plots and the HTML report can be drawn again from results.json alone.
    nlohmann::ordered_json report = nlohmann::ordered_json::object();
    // What `--uncertainty` sampled (experiment/uncertainty.h): {"method", "samples", "interval",
    // "costs": [{"key", "mark", "lo", "hi", "scale"}]}; empty without it.
    nlohmann::ordered_json uncertainty = nlohmann::ordered_json::object();
};

// FNV-1a 64 of a text, as 16 hex digits.
std::string text_hash(std::string_view text);

// FNV-1a over the row fingerprints in order: equal iff every row's run was identical.
uint64_t combined_fingerprint(const std::vector<ResultRow>& rows);

// 16 lower-case hex digits.
std::string fingerprint_hex(uint64_t fingerprint);

}  // namespace ipisim::report
