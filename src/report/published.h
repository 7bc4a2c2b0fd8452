// Published reference values of an experiment ([published] in its file), printed beside the
// predictions with their relative error.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/results.h"

namespace ipisim::report {

struct PublishedRow {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();   // a subset of [params]
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();  // metric name -> number
    std::string note;
    // Where the row's metrics are written, for messages ("published.rows[0].metrics").
    std::string file;
    int line = 0;
    std::string key;
};

struct Published {
    std::string source;  // where the numbers come from ("seed 000, table 1")
    std::vector<PublishedRow> rows;
};

// True when every parameter the published row names has the result row's value. Durations
// compare by value, so "1 ms" matches "1000 us".
bool matches(const PublishedRow& published, const ResultRow& row);

// The first published row matching a result row, if any.
const PublishedRow* find_published(const Published& published, const ResultRow& row);

// (predicted - published) / published; nullopt when published is zero.
std::optional<double> relative_error(double predicted, double published);

// Copies into each result row the metrics of its matching published row (ResultRow::published),
// and the source, so results.json carries them.
void attach_published(ExperimentResults& results, const Published& published);

// The published values a results.json carries, as a Published whose rows match the result rows
// they were attached to (by every parameter of the row).
Published published_of(const ExperimentResults& results);

}  // namespace ipisim::report
