#include "report/published.h"

#include <cmath>

#include "config/units.h"

namespace ipisim::report {

namespace {

bool same_value(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    if (a.is_string() && b.is_string()) {
        std::string why;
        auto da = config::parse_duration(a.get<std::string>(), &why);
        auto db = config::parse_duration(b.get<std::string>(), &why);
        if (da && db) return *da == *db;
    }
    return a == b;
}

}  // namespace

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
