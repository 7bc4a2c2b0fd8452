#include "report/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "config/error.h"
#include "config/names.h"
#include "report/text_table.h"

namespace ipisim::report {

namespace {

using config::contains;

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

bool has_median(const ExperimentResults& results, const std::string& metric) {
    return std::any_of(results.rows.begin(), results.rows.end(),
                       [&](const ResultRow& r) { return r.metrics_median.contains(metric); });
}

// The table of the swept parameters and the chosen metrics; with --uncertainty, each prediction
// as `pred [p5, p95]` and the samples' median beside it.
TextTable metric_table(const ExperimentResults& results, const Published& published,
                       const std::vector<std::string>& metrics, const std::set<std::string>& with_published) {
    std::vector<std::string> header = results.swept;
    for (const auto& m : metrics) {
        header.push_back(m);
        if (has_median(results, m)) header.push_back("median");
        if (with_published.count(m) != 0) {
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
        for (const auto& m : metrics) {
            const auto predicted = row.metrics.value(m, nlohmann::ordered_json());
            cells.push_back(metric_text(m, predicted) + interval_text(m, row));
            if (has_median(results, m))
                cells.push_back(metric_text(m, row.metrics_median.value(m, nlohmann::ordered_json())));
            if (with_published.count(m) == 0) continue;
            const auto pub = p != nullptr ? p->metrics.value(m, nlohmann::ordered_json()) : nlohmann::ordered_json();
            cells.push_back(metric_text(m, pub));
            cells.push_back(error_text(predicted, pub));
        }
        table.add_row(std::move(cells));
    }
    return table;
}

size_t widest_line(const std::string& text) {
    size_t widest = 0;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = std::min(text.find('\n', start), text.size());
        widest = std::max(widest, end - start);
        start = end + 1;
    }
    return widest;
}

// Published metrics first, then the others while the table stays within the width.
std::vector<std::string> default_metrics(const ExperimentResults& results, const Published& published,
                                         const MetricColumns& all, size_t width) {
    std::vector<std::string> chosen;
    for (const auto& m : all.names) {
        if (all.with_published.count(m) != 0) chosen.push_back(m);
    }
    for (const auto& m : all.names) {
        if (contains(chosen, m)) continue;
        std::vector<std::string> candidate = chosen;
        candidate.push_back(m);
        // Keep the workload's order among the chosen ones.
        std::vector<std::string> ordered;
        for (const auto& n : all.names) {
            if (contains(candidate, n)) ordered.push_back(n);
        }
        if (!chosen.empty() &&
            widest_line(metric_table(results, published, ordered, all.with_published).render()) > width) {
            continue;
        }
        chosen = std::move(ordered);
    }
    return chosen;
}

std::string uncertainty_note(const ExperimentResults& results) {
    const nlohmann::ordered_json& u = results.uncertainty;
    if (u.empty()) return "";
    const size_t samples = u.value("samples", size_t{0});
    const size_t feasible = u.value("feasible", samples);
    const size_t drawn = u.value("drawn", samples);
    const std::string refused =
        drawn > feasible ? fmt::format(" ({} of {} drawn refused by the machine's checks)", drawn - feasible, drawn)
                         : "";
    std::string out = fmt::format(
        "uncertainty: [lo, hi] is the {} interval and median that of {} machines{} sampled ({}) over "
        "{} ranged costs (docs/uncertainty.md)\n",
        u.value("interval", ""), feasible, refused, u.value("method", ""), u.contains("costs") ? u["costs"].size() : 0);
    bool outside = false;
    for (const ResultRow& row : results.rows) {
        for (const auto& [metric, iv] : row.metrics_interval.items())
            outside = outside || nominal_outside_interval(metric, row);
    }
    if (outside) {
        out +=
            "uncertainty: * the nominal value lies outside its interval: most sampled machines are slower (or "
            "faster) than the nominal one, as when the costs' ranges are not centred on their nominal values\n";
    }
    // Sampled machines whose run the checker's monitors failed: their metrics are in the
    // intervals, but a deadlocked machine is not a slow one (results.json "uncertainty").
    if (u.contains("violations")) {
        const nlohmann::ordered_json& v = u["violations"];
        const nlohmann::ordered_json& first = v.front();
        const nlohmann::ordered_json& c = first["check"]["first"];
        out += fmt::format(
            "uncertainty: WARNING: {} sampled run(s) ended with a checker violation; first: sample {}, point {}: {} on "
            "cpu{}: {}\n",
            v.size(), first["sample"].get<size_t>(), first["point"].get<size_t>() + 1, c["kind"].get<std::string>(),
            c["cpu"].get<uint32_t>(), c["diagnosis"].get<std::string>());
    }
    return out;
}

std::string latency_tables(const ExperimentResults& results) {
    std::vector<std::string> ops;
    for (const ResultRow& row : results.rows) {
        for (const auto& [op, h] : row.latency.items()) {
            if (!contains(ops, op)) ops.push_back(op);
        }
    }
    if (ops.empty()) return "\nlatency: no timed operation ran\n";
    std::string out;
    for (const auto& op : ops) {
        std::vector<std::string> header = results.swept;
        for (const char* c : {"count", "p50", "p90", "p99", "max"}) header.emplace_back(c);
        TextTable table(header);
        for (const ResultRow& row : results.rows) {
            std::vector<std::string> cells;
            for (const auto& key : results.swept)
                cells.push_back(cell_text(row.params.value(key, nlohmann::ordered_json())));
            if (row.latency.contains(op)) {
                const auto& h = row.latency[op];
                cells.push_back(number_text(h.value("count", 0.0)));
                for (const char* q : {"p50_ns", "p90_ns", "p99_ns", "max_ns"})
                    cells.push_back(number_text(h.value(q, 0.0)));
            } else {
                cells.emplace_back("0");
            }
            table.add_row(std::move(cells));
        }
        out += fmt::format("\nlatency of {} (ns):\n{}", op, table.render());
    }
    return out;
}

}  // namespace

std::vector<std::string> parse_metric_list(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(',', start), text.size());
        std::string name = text.substr(start, end - start);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        if (name.empty()) throw config::ConfigError("--metrics", 0, text, "an empty metric name");
        out.push_back(name);
        start = end + 1;
    }
    return out;
}

void check_metrics(const ExperimentResults& results, const std::vector<std::string>& names) {
    const MetricColumns all = metric_columns(results, {});
    for (const auto& n : names) {
        if (contains(all.names, n)) continue;
        std::string known;
        for (const auto& m : all.names) known += (known.empty() ? "" : ", ") + m;
        throw config::ConfigError("--metrics", 0, n, fmt::format("no such metric (there are: {})", known));
    }
}

std::string render_summary(const ExperimentResults& results, const Published& published,
                           const SummaryOptions& options) {
    const MetricColumns all = metric_columns(results, published);
    if (!options.metrics.empty()) check_metrics(results, options.metrics);
    const std::vector<std::string> shown =
        options.metrics.empty() ? default_metrics(results, published, all, options.width) : options.metrics;

    std::string out = fmt::format("experiment: {}", results.experiment);
    if (!results.machine.empty()) out += fmt::format("  machine: {}", results.machine);
    if (!results.kernel.empty()) out += fmt::format("  kernel: Linux {}", results.kernel);
    if (results.runs > 1) {
        out += fmt::format("  seeds: {}-{} ({} runs per point, metrics are their mean)\n", results.seed,
                           results.seed + results.runs - 1, results.runs);
    } else {
        out += fmt::format("  seed: {}\n", results.seed);
    }
    if (!results.machine_description.empty()) out += fmt::format("machine: {}\n", results.machine_description);
    const std::string fixed = constant_params(results);
    if (!fixed.empty()) out += fmt::format("params: {}\n", fixed);
    out += fmt::format("\n{}", metric_table(results, published, shown, all.with_published).render());
    std::string hidden;
    for (const auto& m : all.names) {
        if (!contains(shown, m)) hidden += (hidden.empty() ? "" : ", ") + m;
    }
    if (!hidden.empty() && options.metrics.empty())
        out += fmt::format("not shown: {} (choose with --metrics; all are in results.csv)\n", hidden);
    if (options.latency) out += latency_tables(results);
    bool any_published = false;
    for (const auto& m : shown) any_published = any_published || all.with_published.count(m) != 0;
    out += "\n";
    if (any_published && !published.source.empty()) out += fmt::format("published: {}\n", published.source);
    if (!results.published_note.empty()) out += fmt::format("note: {}\n", results.published_note);
    out += uncertainty_note(results);
    out += fmt::format("fingerprint: {}\n", fingerprint_hex(combined_fingerprint(results.rows)));
    return out;
}

}  // namespace ipisim::report
