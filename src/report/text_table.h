// A plain-text table with aligned columns: text left-aligned, numbers right-aligned.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "report/results.h"

namespace ipisim::report {

class TextTable {
public:
    explicit TextTable(std::vector<std::string> header);

    // Cells beyond the header's width are dropped; missing cells are blank.
    void add_row(std::vector<std::string> cells);
    [[nodiscard]] std::string render() const;

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

// A JSON scalar as a table cell or CSV field: strings bare, numbers with 6 significant digits
// (integers in full), anything else as JSON. Parameters and the seed's own text use it.
std::string cell_text(const nlohmann::ordered_json& value);

// A measured number for people: three significant digits, with k, M, G, T from a thousand up
// (1.05M, 933k, 175, 5.23, 0.0316), so one column never mixes 1.0509e+06 with 933000.
std::string number_text(double v);
// A share of 1 as a percentage: 0.0316 -> "3.16%".
std::string percent_text(double share);
// Metrics named "..._share" (or "share") are shares of 1.
bool is_share(std::string_view metric);
// A metric's value as a table cell: shares as percentages, other numbers as number_text,
// anything else as cell_text.
std::string metric_text(std::string_view metric, const nlohmann::ordered_json& value);
// " [lo, hi]" from the row's metrics_interval for the metric (metric_text), "" if it has none;
// " [lo, hi]*" when the row's (nominal) value lies outside it.
std::string interval_text(std::string_view metric, const ResultRow& row);
// The row's value of the metric lies outside its metrics_interval (false without one).
bool nominal_outside_interval(std::string_view metric, const ResultRow& row);

}  // namespace ipisim::report
