#include "report/html_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "config/names.h"
#include "report/html.h"
#include "report/published.h"
#include "report/seed_shape.h"
#include "report/shape_json.h"
#include "report/text_table.h"

namespace ipisim::report {

namespace {

using config::contains;

std::string td(const std::string& html, const char* cls = nullptr) {
    return cls == nullptr ? "<td>" + html + "</td>" : fmt::format("<td class=\"{}\">{}</td>", cls, html);
}

std::string th(const std::string& text) {
    return "<th>" + html_escape(text) + "</th>";
}

std::string param_cell(const ResultRow& row, const std::string& key) {
    return html_escape(cell_text(row.params.value(key, nlohmann::ordered_json())));
}

// Like the seed's text table (report/seed_shape.cpp): value / scale, then the suffix.
std::string seed_number(const SeedShape& s, double v) {
    const double x = v / s.scale;
    return (std::abs(x) >= 100 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x)) + s.suffix;
}

std::string error_span(double predicted, double published) {
    const auto err = relative_error(predicted, published);
    if (!err) return "";
    return fmt::format("<span class=\"err {}\">{:+.1f}%</span>", error_class(*err), *err * 100);
}

std::vector<std::string> metric_names(const ExperimentResults& r) {
    std::vector<std::string> out;
    for (const ResultRow& row : r.rows) {
        for (const auto& [k, v] : row.metrics.items()) {
            if (!contains(out, k)) out.push_back(k);
        }
    }
    return out;
}

std::string point_label(const ExperimentResults& r, const ResultRow& row) {
    std::string out;
    for (const auto& k : r.swept) out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, cell_text(row.params[k]));
    return out.empty() ? "(the run)" : out;
}

// One colour per profile entry of an experiment, the most prominent ones (largest share summed
// over the points; ties by name) first, so every point's bar uses the same colours.
std::map<std::string, const char*> profile_colours(const ExperimentResults& r) {
    static constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                               "#b07aa1", "#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#8c564b"};
    std::map<std::string, double> total;
    for (const ResultRow& row : r.rows) {
        for (const auto& [name, share] : row.profile.items()) {
            if (name != "(other)") total[name] += share.get<double>();
        }
    }
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [name, t] : total) ranked.emplace_back(-t, name);
    std::sort(ranked.begin(), ranked.end());
    std::map<std::string, const char*> out;
    for (size_t i = 0; i < ranked.size(); ++i)
        out[ranked[i].second] = i < std::size(kPalette) ? kPalette[i] : "#c7c7c7";
    out["(other)"] = "#e2e2e2";
    return out;
}

// Under a table of predictions with --uncertainty intervals: what [lo, hi] and * mean. `only`:
// the one metric the table shows (empty: all of them).
std::string interval_note(const ExperimentResults& results, const std::string& only = "") {
    bool any = false, outside = false;
    for (const ResultRow& row : results.rows) {
        for (const auto& [metric, iv] : row.metrics_interval.items()) {
            if (!only.empty() && metric != only) continue;
            any = true;
            outside = outside || nominal_outside_interval(metric, row);
        }
    }
    if (!any) return "";
    return std::string(
               "<p class=\"note\">[lo, hi]: the 5&ndash;95% interval of the prediction over the sampled "
               "machines (<code>--uncertainty</code>)") +
           (outside ? "; * the nominal value lies outside it (most sampled machines are slower or faster)" : "") +
           "</p>\n";
}

}  // namespace

const char* error_class(double relative_error) {
    const double a = std::abs(relative_error);
    return a <= 0.10 ? "good" : a <= 0.30 ? "fair" : "poor";
}

ErrorSummary error_summary(const ExperimentResults& results) {
    ErrorSummary s;
    double sum = 0;
    for (const ResultRow& row : results.rows) {
        for (const auto& [m, pub] : row.published.items()) {
            if (!row.metrics.contains(m) || !row.metrics[m].is_number() || !pub.is_number()) continue;
            const auto err = relative_error(row.metrics[m].get<double>(), pub.get<double>());
            if (!err) continue;
            ++s.cells;
            sum += std::abs(*err);
            s.max_abs = std::max(s.max_abs, std::abs(*err));
        }
    }
    if (s.cells > 0) s.mean_abs = sum / static_cast<double>(s.cells);
    return s;
}

std::string html_seed_table(const ExperimentResults& results) {
    const SeedShape shape = shape_from_json(results.report);
    if (shape.kind == SeedShape::Kind::none) return "";
    std::string out = shape.title.empty() ? "" : "<p class=\"caption\">" + html_escape(shape.title) + "</p>\n";
    if (shape.kind == SeedShape::Kind::lines) {
        // The text is "\nIn the seed's shape...:\n", the title's line, then the template's lines.
        std::string text = render_seed_shape(shape, results, published_of(results));
        for (int header_lines = shape.title.empty() ? 2 : 3; header_lines > 0 && !text.empty(); --header_lines) {
            const size_t nl = text.find('\n');
            text = nl == std::string::npos ? "" : text.substr(nl + 1);
        }
        return out + "<pre class=\"seed\">" + html_escape(text) + "</pre>\n";
    }
    std::vector<nlohmann::ordered_json> row_keys, col_keys;
    for (const ResultRow& r : results.rows) {
        const auto& rk = r.params.value(shape.rows, nlohmann::ordered_json());
        const auto& ck = r.params.value(shape.columns, nlohmann::ordered_json());
        if (std::find(row_keys.begin(), row_keys.end(), rk) == row_keys.end()) row_keys.push_back(rk);
        if (std::find(col_keys.begin(), col_keys.end(), ck) == col_keys.end()) col_keys.push_back(ck);
    }
    out += "<table class=\"seed\"><thead><tr>" + th(shape.rows);
    for (const auto& c : col_keys) out += th(cell_text(c));
    out += "</tr></thead><tbody>\n";
    for (const auto& rk : row_keys) {
        out += "<tr>" + td(html_escape(cell_text(rk)), "key");
        for (const auto& ck : col_keys) {
            std::string cell = "&ndash;";
            for (const ResultRow& r : results.rows) {
                if (r.params.value(shape.rows, nlohmann::ordered_json()) != rk ||
                    r.params.value(shape.columns, nlohmann::ordered_json()) != ck || !r.metrics.contains(shape.value) ||
                    !r.metrics[shape.value].is_number()) {  // undefined at this point (null): a dash
                    continue;
                }
                const double pred = r.metrics[shape.value].get<double>();
                cell = "<span class=\"pred\">" + html_escape(seed_number(shape, pred)) + "</span>";
                const auto iv = r.metrics_interval.find(shape.value);
                if (iv != r.metrics_interval.end() && iv->is_array() && iv->size() == 2) {
                    cell += " <span class=\"iv\">[" + html_escape(seed_number(shape, (*iv)[0].get<double>())) + ", " +
                            html_escape(seed_number(shape, (*iv)[1].get<double>())) + "]" +
                            (nominal_outside_interval(shape.value, r) ? "*" : "") + "</span>";
                }
                if (r.published.contains(shape.value)) {
                    const double pub = r.published[shape.value].get<double>();
                    cell += " <span class=\"pub\">" + html_escape(seed_number(shape, pub)) + "</span> " +
                            error_span(pred, pub);
                }
            }
            out += td(cell, "num");
        }
        out += "</tr>\n";
    }
    out += "</tbody></table>\n";
    if (!results.published_source.empty()) {
        out += "<p class=\"note\">predicted <span class=\"pub\">published</span> error; published: " +
               html_escape(results.published_source) + "</p>\n";
    }
    return out + interval_note(results, shape.value);
}

std::string html_points_table(const ExperimentResults& results) {
    const std::vector<std::string> metrics = metric_names(results);
    std::vector<std::string> with_pub;
    for (const ResultRow& row : results.rows) {
        for (const auto& [k, v] : row.published.items()) {
            if (!contains(with_pub, k)) with_pub.push_back(k);
        }
    }
    std::string out = "<div class=\"scroll\"><table class=\"points\"><thead><tr>";
    for (const auto& k : results.swept) out += th(k);
    for (const auto& m : metrics) {
        out += th(m);
        if (contains(with_pub, m)) out += th("published") + th("error");
    }
    out += "</tr></thead><tbody>\n";
    for (const ResultRow& row : results.rows) {
        out += "<tr>";
        for (const auto& k : results.swept) out += td(param_cell(row, k), "key");
        for (const auto& m : metrics) {
            const auto v = row.metrics.value(m, nlohmann::ordered_json());
            out += td(html_escape(metric_text(m, v) + interval_text(m, row)), "num");
            if (!contains(with_pub, m)) continue;
            const auto p = row.published.value(m, nlohmann::ordered_json());
            out += td(html_escape(metric_text(m, p)), "num");
            out += td(v.is_number() && p.is_number() ? error_span(v.get<double>(), p.get<double>()) : "", "num");
        }
        out += "</tr>\n";
    }
    return out + "</tbody></table></div>\n" + interval_note(results);
}

std::string html_profile_table(const ExperimentResults& results) {
    const std::map<std::string, const char*> colours = profile_colours(results);
    std::string out;
    for (const ResultRow& row : results.rows) {
        if (row.profile.empty()) continue;
        std::string bar, names;
        size_t shown = 0;
        for (const auto& [name, share] : row.profile.items()) {
            const double pct = share.get<double>() * 100;
            const char* colour = colours.at(name);
            bar += fmt::format("<span style=\"width:{:.2f}%;background:{}\" title=\"{} {:.1f}%\"></span>", pct, colour,
                               html_escape(name), pct);
            if (shown++ < 4) {
                names += fmt::format("<span class=\"entry\"><i style=\"background:{}\"></i>{:.1f}% {}</span>", colour,
                                     pct, html_escape(name));
            }
        }
        out += "<tr>" + td(html_escape(point_label(results, row)), "key") + td("<div class=\"bar\">" + bar + "</div>") +
               td(names) + "</tr>\n";
    }
    if (out.empty()) return "";
    return "<table class=\"profile\"><thead><tr>" + th("point") + th("busy CPU time") + th("top entries") +
           "</tr></thead><tbody>\n" + out + "</tbody></table>\n";
}

std::string html_latency_table(const ExperimentResults& results) {
    std::vector<std::string> ops;
    for (const ResultRow& row : results.rows) {
        for (const auto& [op, h] : row.latency.items()) {
            if (!contains(ops, op)) ops.push_back(op);
        }
    }
    if (ops.empty()) return "";
    static constexpr const char* kColumns[] = {"count", "p50_ns", "p99_ns", "max_ns"};
    std::string out = "<div class=\"scroll\"><table class=\"latency\"><thead><tr>";
    for (const auto& k : results.swept) out += "<th rowspan=\"2\">" + html_escape(k) + "</th>";
    for (const auto& op : ops) out += "<th class=\"group\" colspan=\"4\">" + html_escape(op) + "</th>";
    out += "</tr><tr>";
    for (size_t i = 0; i < ops.size(); ++i) out += "<th class=\"group\">count</th><th>p50</th><th>p99</th><th>max</th>";
    out += "</tr></thead><tbody>\n";
    for (const ResultRow& row : results.rows) {
        out += "<tr>";
        for (const auto& k : results.swept) out += td(param_cell(row, k), "key");
        for (const auto& op : ops) {
            for (const char* c : kColumns) {
                const bool first = std::string(c) == "count";
                const std::string v = row.latency.contains(op) ? number_text(row.latency[op].value(c, 0.0)) : "&ndash;";
                out += td(v, first ? "num group" : "num");
            }
        }
        out += "</tr>\n";
    }
    return out +
           "</tbody></table></div>\n<p class=\"note\">ns per operation in the measurement window; "
           "quantiles are histogram bucket edges (within ~6%), max is exact</p>\n";
}

}  // namespace ipisim::report
