#include "report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "config/error.h"
#include "config/names.h"
#include "report/results_files.h"
#include "report/text_table.h"

namespace ipisim::report {

namespace {

using config::contains;

std::vector<std::string> keys_of(const std::vector<const ResultRow*>& rows, nlohmann::ordered_json ResultRow::*field) {
    std::vector<std::string> out;
    for (const ResultRow* r : rows) {
        for (const auto& [k, v] : (r->*field).items()) {
            if (!contains(out, k)) out.push_back(k);
        }
    }
    return out;
}

std::vector<const ResultRow*> all(const ExperimentResults& r) {
    std::vector<const ResultRow*> out;
    for (const ResultRow& row : r.rows) out.push_back(&row);
    return out;
}

// The parameters that take more than one value in a run.
std::vector<std::string> varying(const ExperimentResults& r) {
    std::vector<std::string> out = r.swept;
    for (const auto& k : keys_of(all(r), &ResultRow::params)) {
        for (const ResultRow& row : r.rows) {
            if (!contains(out, k) && row.params.value(k, nlohmann::ordered_json()) !=
                                         r.rows.front().params.value(k, nlohmann::ordered_json())) {
                out.push_back(k);
            }
        }
    }
    return out;
}

std::string point_key(const ResultRow& row, const std::vector<std::string>& keys) {
    nlohmann::ordered_json k = nlohmann::ordered_json::array();
    for (const auto& key : keys) k.push_back(row.params.value(key, nlohmann::ordered_json()));
    return k.dump();
}

std::string point_text(const ResultRow& row, const std::vector<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) {
        out +=
            fmt::format("{}{}={}", out.empty() ? "" : " ", k, cell_text(row.params.value(k, nlohmann::ordered_json())));
    }
    return out.empty() ? "(the run)" : out;
}

std::string signed_number(double v) {
    return fmt::format("{}{}", v > 0 ? "+" : "", number_text(v));
}

}  // namespace

std::string compare_results(const ExperimentResults& a, const ExperimentResults& b, const CompareOptions& options) {
    std::string out = fmt::format("A: {}  fingerprint {}  ({} points)\nB: {}  fingerprint {}  ({} points)\n",
                                  a.experiment, fingerprint_hex(combined_fingerprint(a.rows)), a.rows.size(),
                                  b.experiment, fingerprint_hex(combined_fingerprint(b.rows)), b.rows.size());
    std::vector<std::string> keys = varying(a);
    for (const auto& k : varying(b)) {
        if (!contains(keys, k)) keys.push_back(k);
    }
    // Constant parameters that differ between the runs.
    if (!a.rows.empty() && !b.rows.empty()) {
        std::vector<std::string> params = keys_of(all(a), &ResultRow::params);
        for (const auto& k : keys_of(all(b), &ResultRow::params)) {
            if (!contains(params, k)) params.push_back(k);
        }
        for (const auto& k : params) {
            if (contains(keys, k)) continue;
            const auto va = a.rows.front().params.value(k, nlohmann::ordered_json());
            const auto vb = b.rows.front().params.value(k, nlohmann::ordered_json());
            if (va != vb) out += fmt::format("differs: {}: {} | {}\n", k, cell_text(va), cell_text(vb));
        }
    }
    std::map<std::string, const ResultRow*> in_b;
    for (const ResultRow& row : b.rows) in_b.emplace(point_key(row, keys), &row);
    std::vector<std::string> known = keys_of(all(a), &ResultRow::metrics);
    for (const auto& m : keys_of(all(b), &ResultRow::metrics)) {
        if (!contains(known, m)) known.push_back(m);
    }
    for (const auto& m : options.metrics) {
        if (contains(known, m)) continue;
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw config::ConfigError("--metrics", 0, m, fmt::format("no such metric in A or B (there are: {})", list));
    }
    const std::vector<std::string>& metrics = options.metrics.empty() ? known : options.metrics;

    std::vector<std::string> header = keys;
    for (const char* h : {"metric", "A", "B", "B-A", "(B-A)/A"}) header.emplace_back(h);
    TextTable table(header);
    std::vector<std::string> only_a, only_b;
    size_t identical = 0, matched = 0;
    std::map<std::string, bool> seen;
    for (const ResultRow& ra : a.rows) {
        const std::string key = point_key(ra, keys);
        auto it = in_b.find(key);
        if (it == in_b.end()) {
            only_a.push_back(point_text(ra, keys));
            continue;
        }
        seen[key] = true;
        ++matched;
        const ResultRow& rb = *it->second;
        if (ra.fingerprint != 0 && ra.fingerprint == rb.fingerprint) ++identical;
        for (const auto& m : metrics) {
            const auto va = ra.metrics.value(m, nlohmann::ordered_json());
            const auto vb = rb.metrics.value(m, nlohmann::ordered_json());
            if (va.is_null() && vb.is_null()) continue;
            std::vector<std::string> cells;
            for (const auto& k : keys) cells.push_back(cell_text(ra.params.value(k, nlohmann::ordered_json())));
            cells.push_back(m);
            cells.push_back(va.is_null() ? "(none)" : metric_text(m, va));
            cells.push_back(vb.is_null() ? "(none)" : metric_text(m, vb));
            const bool numbers = va.is_number() && vb.is_number() && !va.is_boolean() && !vb.is_boolean();
            if (numbers) {
                const double x = va.get<double>(), y = vb.get<double>();
                cells.push_back(is_share(m) ? fmt::format("{}pp", signed_number((y - x) * 100)) : signed_number(y - x));
                cells.push_back(x != 0 ? fmt::format("{:+.1f}%", (y - x) / std::abs(x) * 100)
                                       : (y == x ? "+0.0%" : ""));
            } else {
                cells.push_back(va == vb ? "" : "changed");
                cells.emplace_back("");
            }
            table.add_row(std::move(cells));
        }
    }
    for (const ResultRow& rb : b.rows) {
        if (seen.count(point_key(rb, keys)) == 0) only_b.push_back(point_text(rb, keys));
    }
    out += "\n";
    out += table.render();
    for (const auto& p : only_a) out += fmt::format("only in A: {}\n", p);
    for (const auto& p : only_b) out += fmt::format("only in B: {}\n", p);
    out += fmt::format("{} points in both, {} with equal fingerprints (identical runs)\n", matched, identical);
    return out;
}

namespace {

std::vector<std::string> experiment_dirs(const std::filesystem::path& root) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
        if (e.is_directory(ec) && std::filesystem::is_regular_file(e.path() / "results.json", ec)) {
            out.push_back(e.path().filename().string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

void check_folder(const std::filesystem::path& p) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) throw config::ConfigError(p.string(), 0, "(folder)", "no such folder");
    if (!std::filesystem::is_regular_file(p / "results.json", ec) && experiment_dirs(p).empty()) {
        throw config::ConfigError(p.string(), 0, "(folder)",
                                  "holds no results.json and no experiment folder (NAME/results.json)");
    }
}

}  // namespace

std::string compare_folders(const std::filesystem::path& a, const std::filesystem::path& b,
                            const CompareOptions& options) {
    check_folder(a);
    check_folder(b);
    std::error_code ec;
    const bool single_a = std::filesystem::is_regular_file(a / "results.json", ec);
    const bool single_b = std::filesystem::is_regular_file(b / "results.json", ec);
    if (single_a && single_b) {
        return compare_results(read_results_json(a / "results.json"), read_results_json(b / "results.json"), options);
    }
    if (single_a != single_b) {
        const auto& root = single_a ? b : a;
        throw config::ConfigError(root.string(), 0, "(folder)",
                                  "is a results root while the other is one results folder: compare "
                                  "ROOT/NAME with the folder");
    }
    const std::vector<std::string> names_a = experiment_dirs(a), names_b = experiment_dirs(b);
    std::string out;
    for (const auto& n : names_a) {
        if (!contains(names_b, n)) {
            out += fmt::format("==== {}: only in A\n", n);
            continue;
        }
        out += fmt::format("==== {}\n", n);
        out += compare_results(read_results_json(a / n / "results.json"), read_results_json(b / n / "results.json"),
                               options);
    }
    for (const auto& n : names_b) {
        if (!contains(names_a, n)) out += fmt::format("==== {}: only in B\n", n);
    }
    bool common = false;
    for (const auto& n : names_a) common = common || contains(names_b, n);
    if (!common) throw config::ConfigError(b.string(), 0, "(folder)", "has no experiment in common with " + a.string());
    return out;
}

}  // namespace ipisim::report
