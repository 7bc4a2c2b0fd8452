// The outcome of one experiment: one row per sweep point, and the run fingerprint over them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ipisim::report {

struct ResultRow {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();   // every parameter
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();  // as the workload named them
    // Metrics the point cannot define (0/0): null in `metrics`, and here the reason.
    nlohmann::ordered_json undefined = nlohmann::ordered_json::object();
    nlohmann::ordered_json profile = nlohmann::ordered_json::object();  // {"function (activity)": CPU-time share}
    uint64_t fingerprint = 0;                                           // the engine's fingerprint
    uint64_t events = 0;
    double simulated_seconds = 0;
    size_t point = 0;  // the sweep point (index in sweep order)
};

struct ExperimentResults {
    std::string experiment;
    uint64_t seed = 1;
    std::vector<std::string> swept;  // the [sweep] keys, in file order
    std::vector<ResultRow> rows;     // in sweep order
};

// FNV-1a over the row fingerprints in order: equal iff every row's run was identical.
uint64_t combined_fingerprint(const std::vector<ResultRow>& rows);

// 16 lower-case hex digits.
std::string fingerprint_hex(uint64_t fingerprint);

}  // namespace ipisim::report
