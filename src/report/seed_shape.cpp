#include "report/seed_shape.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/text_table.h"

namespace ipisim::report {

SeedShape read_seed_shape(config::Table t, const config::Table& params) {
    SeedShape s;
    const auto kind = t.get<std::string>("kind");
    s.title = t.get_or<std::string>("title", "");
    if (kind == "pivot") {
        s.kind = SeedShape::Kind::pivot;
        s.rows = t.get<std::string>("rows");
        s.columns = t.get<std::string>("columns");
        s.value = t.get<std::string>("value");
        s.scale = t.get_or<double>("scale", 1.0);
        s.suffix = t.get_or<std::string>("suffix", "");
        for (const char* key : {"rows", "columns"}) {
            const std::string& name = std::string(key) == "rows" ? s.rows : s.columns;
            if (!params.has(name)) t.fail(key, "\"" + name + "\" is not a key of [params]");
        }
        if (s.scale <= 0) t.fail("scale", "must be above zero");
    } else if (kind == "lines") {
        s.kind = SeedShape::Kind::lines;
        s.line = t.get<std::string>("line");
    } else {
        t.fail("kind", "must be \"pivot\" or \"lines\", got \"" + kind + "\"");
    }
    t.finish();
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
                const double pred = r.metrics[s.value].get<double>();
                cell = number(s, pred);
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
