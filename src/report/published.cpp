#include "report/published.h"

#include "report/published_value.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "config/names.h"
#include "config/units.h"

namespace ipisim::report {

namespace {

using config::contains;

bool same_value(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
    return same_published_value(a, b);
}

std::string value_text(const nlohmann::ordered_json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

bool same_published_value(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    if (a.is_string() && b.is_string()) {
        std::string why;
        auto da = config::parse_duration(a.get<std::string>(), &why);
        auto db = config::parse_duration(b.get<std::string>(), &why);
        if (da && db) return *da == *db;
    }
    return a == b;
}

bool matches(const PublishedRow& published, const ResultRow& row) {
    for (const auto& [key, value] : published.params.items()) {
        if (!row.params.contains(key) || !same_value(value, row.params[key])) return false;
    }
    return true;
}

const PublishedRow* find_published(const Published& published, const ResultRow& row) {
    for (const PublishedRow& p : published.rows) {
        if (matches(p, row)) return &p;
    }
    return nullptr;
}

std::optional<double> relative_error(double predicted, double published) {
    if (published == 0 || !std::isfinite(published)) return std::nullopt;
    return (predicted - published) / published;
}

void attach_published(ExperimentResults& results, const Published& published) {
    results.published_source = published.source;
    for (ResultRow& row : results.rows) {
        const PublishedRow* p = find_published(published, row);
        row.published = p != nullptr ? p->metrics : nlohmann::ordered_json::object();
    }
}

namespace {

// The parameters of `row` outside the published setup: not named by `p`, not swept in the file,
// and without the file's own value. As "key=value (published: file value)".
std::vector<std::string> outside_scope(const PublishedRow& p, const ResultRow& row, const PublishedScope& scope) {
    std::vector<std::string> out;
    for (const auto& [key, value] : row.params.items()) {
        if (p.params.contains(key) || contains(scope.swept, key)) continue;
        if (scope.values.contains(key) && same_value(scope.values[key], value)) continue;
        const std::string file =
            scope.values.contains(key) ? value_text(scope.values[key]) : std::string("the default");
        out.push_back(fmt::format("{}={} (published: {})", key, value_text(value), file));
    }
    return out;
}

// The published setup values a row differs in (the row's values did not match them).
std::vector<std::string> setup_differences(const Published& published, const ResultRow& row) {
    std::vector<std::string> out;
    for (const auto& [key, value] : published.setup.items()) {
        if (row.params.contains(key) && same_value(row.params[key], value)) continue;
        const std::string mine = row.params.contains(key) ? value_text(row.params[key]) : std::string("unset");
        out.push_back(fmt::format("{}={} (published: {})", key, mine, value_text(value)));
    }
    return out;
}

}  // namespace

void attach_published(ExperimentResults& results, const Published& published, const PublishedScope& scope) {
    attach_published(results, published);
    if (published.rows.empty()) return;
    std::vector<std::string> reasons;
    auto note = [&](const std::string& r) {
        if (!contains(reasons, r)) reasons.push_back(r);
    };
    if (!scope.machine.empty() && results.machine != scope.machine) {
        note(fmt::format("machine {} (published: {})", results.machine, scope.machine));
    }
    for (const std::string& o : scope.machine_overrides) note(fmt::format("--set machine.{}", o));
    const bool machine_differs = !reasons.empty();
    for (ResultRow& row : results.rows) {
        const PublishedRow* p = find_published(published, row);
        if (p == nullptr) {
            for (const std::string& r : setup_differences(published, row)) note(r);
            continue;
        }
        const std::vector<std::string> outside = outside_scope(*p, row, scope);
        for (const std::string& r : outside) note(r);
        if (machine_differs || !outside.empty()) row.published = nlohmann::ordered_json::object();
    }
    if (reasons.empty()) return;
    results.published_note = fmt::format("published values are not compared where the run differs from their setup: {}",
                                         fmt::join(reasons, ", "));
}

Published published_of(const ExperimentResults& results) {
    Published out;
    out.source = results.published_source;
    for (const ResultRow& row : results.rows) {
        if (row.published.empty()) continue;
        PublishedRow p;
        p.params = row.params;
        p.metrics = row.published;
        out.rows.push_back(std::move(p));
    }
    return out;
}

}  // namespace ipisim::report
