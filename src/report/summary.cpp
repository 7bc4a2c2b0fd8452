#include "report/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "report/text_table.h"

namespace ipisim::report {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// Metrics in first-seen order, and the subset that has a published value for some row.
struct MetricColumns {
    std::vector<std::string> names;
    std::set<std::string> with_published;
};

MetricColumns metric_columns(const ExperimentResults& results, const Published& published) {
    MetricColumns out;
    for (const ResultRow& row : results.rows) {
        for (const auto& [key, value] : row.metrics.items()) {
            if (!contains(out.names, key)) out.names.push_back(key);
        }
        if (const PublishedRow* p = find_published(published, row)) {
            for (const auto& [key, value] : p->metrics.items()) out.with_published.insert(key);
        }
    }
    return out;
}

std::string constant_params(const ExperimentResults& results) {
    if (results.rows.empty()) return "";
    std::string out;
    for (const auto& [key, value] : results.rows.front().params.items()) {
        if (contains(results.swept, key)) continue;
        out += fmt::format("{}{}={}", out.empty() ? "" : ", ", key, cell_text(value));
    }
    return out;
}

std::string error_text(const nlohmann::ordered_json& predicted, const nlohmann::ordered_json& published) {
    if (!predicted.is_number() || !published.is_number()) return "";
    auto err = relative_error(predicted.get<double>(), published.get<double>());
    return err ? fmt::format("{:+.1f}%", *err * 100) : "";
}

}  // namespace

std::string render_summary(const ExperimentResults& results, const Published& published) {
    const MetricColumns metrics = metric_columns(results, published);
    std::vector<std::string> header = results.swept;
    for (const auto& m : metrics.names) {
        header.push_back(m);
        if (metrics.with_published.count(m) != 0) {
            header.push_back("published");
            header.push_back("error");
        }
    }
    TextTable table(header);
    for (const ResultRow& row : results.rows) {
        std::vector<std::string> cells;
        for (const auto& key : results.swept)
            cells.push_back(cell_text(row.params.value(key, nlohmann::ordered_json())));
        const PublishedRow* p = find_published(published, row);
        for (const auto& m : metrics.names) {
            const auto predicted = row.metrics.value(m, nlohmann::ordered_json());
            cells.push_back(cell_text(predicted));
            if (metrics.with_published.count(m) == 0) continue;
            const auto pub = p != nullptr ? p->metrics.value(m, nlohmann::ordered_json()) : nlohmann::ordered_json();
            cells.push_back(cell_text(pub));
            cells.push_back(error_text(predicted, pub));
        }
        table.add_row(std::move(cells));
    }

    std::string out = fmt::format("experiment: {}  seed: {}\n", results.experiment, results.seed);
    const std::string fixed = constant_params(results);
    if (!fixed.empty()) out += fmt::format("params: {}\n", fixed);
    out += fmt::format("\n{}\n", table.render());
    if (!metrics.with_published.empty() && !published.source.empty()) {
        out += fmt::format("published: {}\n", published.source);
    }
    out += fmt::format("fingerprint: {}\n", fingerprint_hex(combined_fingerprint(results.rows)));
    return out;
}

}  // namespace ipisim::report
