#include "report/seed_shape.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/names.h"
#include "report/text_table.h"

namespace ipisim::report {

namespace {

using config::contains;
using config::listed;
using config::placeholders;

}  // namespace

const config::Schema<SeedShape>& seed_shape_schema() {
    using Kind = SeedShape::Kind;
    static const auto s =
        config::Schema<SeedShape>("report", "the seed's own table shape, printed after the summary")
            .choice("kind", &SeedShape::kind, {{"pivot", Kind::pivot}, {"lines", Kind::lines}},
                    "pivot: one row parameter down, one across, a metric in the cells; lines: one line per point")
            .sets("pivot", [](const SeedShape& x) { return x.kind == Kind::pivot; })
            .sets("lines", [](const SeedShape& x) { return x.kind == Kind::lines; })
            .param("title", &SeedShape::title, "printed above the table")
            .def(std::string())
            .param("rows", &SeedShape::rows, "the row parameter down the table")
            .when("pivot")
            .param("columns", &SeedShape::columns, "the row parameter across the table")
            .when("pivot")
            .param("value", &SeedShape::value, "the metric in the cells")
            .when("pivot")
            .param("scale", &SeedShape::scale, "cells show value / scale")
            .def(1.0)
            .when("pivot")
            .check([](const SeedShape& x) { return x.scale > 0 ? "" : "must be above zero"; })
            .param("suffix", &SeedShape::suffix, "after each cell's number (\"k\")")
            .def(std::string())
            .when("pivot")
            .param("line", &SeedShape::line, "template with {row parameter} and {metric} placeholders")
            .when("lines");
    return s;
}

namespace {
const config::SchemaRegistration registration("report", [] { return seed_shape_schema().info(); });
}  // namespace

SeedShape read_seed_shape(const config::Table& t, const std::vector<std::string>& row_params,
                          const std::vector<std::string>& metrics) {
    SeedShape s = seed_shape_schema().read(t);
    if (s.kind == SeedShape::Kind::pivot) {
        for (const char* key : {"rows", "columns"}) {
            const std::string& name = std::string(key) == "rows" ? s.rows : s.columns;
            if (!contains(row_params, name)) {
                t.fail(key, fmt::format("\"{}\" is not a parameter of the rows ({})", name, listed(row_params)));
            }
        }
        if (!contains(metrics, s.value)) {
            t.fail("value", fmt::format("\"{}\" is not a metric of the workload ({})", s.value, listed(metrics)));
        }
    } else {
        for (const std::string& name : placeholders(s.line)) {
            if (!contains(row_params, name) && !contains(metrics, name)) {
                t.fail("line", fmt::format("placeholder {{{}}} names no row parameter ({}) or metric ({})", name,
                                           listed(row_params), listed(metrics)));
            }
        }
    }
    return s;
}

namespace {

std::string number(const SeedShape& s, double v) {
    const double x = v / s.scale;
    const std::string n = std::abs(x) >= 100 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
    return n + s.suffix;
}

// "{name}" replaced by the row's param or metric.
std::string expand(const std::string& tmpl, const ResultRow& row) {
    std::string out;
    size_t i = 0;
    while (i < tmpl.size()) {
        const size_t open = tmpl.find('{', i);
        if (open == std::string::npos) break;
        const size_t close = tmpl.find('}', open);
        if (close == std::string::npos) break;
        out += tmpl.substr(i, open - i);
        const std::string key = tmpl.substr(open + 1, close - open - 1);
        if (row.params.contains(key)) {
            out += cell_text(row.params[key]);
        } else if (row.metrics.contains(key)) {
            out += cell_text(row.metrics[key]);
            if (row.metrics_interval.contains(key)) {
                const auto& iv = row.metrics_interval[key];
                out += fmt::format(" [{}, {}]{}", cell_text(iv[0]), cell_text(iv[1]),
                                   nominal_outside_interval(key, row) ? "*" : "");
            }
        } else {
            out += "{" + key + "?}";
        }
        i = close + 1;
    }
    return out + tmpl.substr(i);
}

std::string pivot(const SeedShape& s, const ExperimentResults& results, const Published& published) {
    std::vector<nlohmann::ordered_json> row_keys, col_keys;
    for (const ResultRow& r : results.rows) {
        if (std::find(row_keys.begin(), row_keys.end(), r.params[s.rows]) == row_keys.end())
            row_keys.push_back(r.params[s.rows]);
        if (std::find(col_keys.begin(), col_keys.end(), r.params[s.columns]) == col_keys.end())
            col_keys.push_back(r.params[s.columns]);
    }
    std::vector<std::string> header = {s.rows};
    for (const auto& c : col_keys) header.push_back(cell_text(c));
    TextTable table(header);
    for (const auto& rk : row_keys) {
        std::vector<std::string> line = {cell_text(rk)};
        for (const auto& ck : col_keys) {
            std::string cell = "-";
            for (const ResultRow& r : results.rows) {
                if (r.params[s.rows] != rk || r.params[s.columns] != ck || !r.metrics.contains(s.value)) continue;
                if (!r.metrics[s.value].is_number()) continue;  // undefined at this point (null): "-"
                const double pred = r.metrics[s.value].get<double>();
                cell = number(s, pred);
                if (r.metrics_interval.contains(s.value)) {
                    const auto& iv = r.metrics_interval[s.value];
                    cell += fmt::format(" [{}, {}]{}", number(s, iv[0].get<double>()), number(s, iv[1].get<double>()),
                                        nominal_outside_interval(s.value, r) ? "*" : "");
                }
                const PublishedRow* p = find_published(published, r);
                if (p != nullptr && p->metrics.contains(s.value)) {
                    const double pub = p->metrics[s.value].get<double>();
                    const auto err = relative_error(pred, pub);
                    cell += fmt::format(" ({}{})", number(s, pub), err ? fmt::format(", {:+.0f}%", *err * 100) : "");
                }
            }
            line.push_back(cell);
        }
        table.add_row(std::move(line));
    }
    return table.render();
}

}  // namespace

std::string render_seed_shape(const SeedShape& shape, const ExperimentResults& results, const Published& published) {
    if (shape.kind == SeedShape::Kind::none) return "";
    std::string out = "\nIn the seed's shape";
    out += published.rows.empty() ? ":\n" : " (published value and error in parentheses):\n";
    if (!shape.title.empty()) out += shape.title + "\n";
    if (shape.kind == SeedShape::Kind::pivot) return out + pivot(shape, results, published);
    for (const ResultRow& r : results.rows) out += expand(shape.line, r) + "\n";
    return out;
}

}  // namespace ipisim::report
