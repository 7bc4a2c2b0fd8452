#include "report/results_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace ipisim::report {

namespace {

using Field = nlohmann::ordered_json ResultRow::*;

// Keys of every row's object `field`, in first-seen order.
std::vector<std::string> columns(const ExperimentResults& results, Field field) {
    std::vector<std::string> out;
    for (const ResultRow& row : results.rows) {
        const auto& obj = row.*field;
        for (const auto& [key, value] : obj.items()) {
            if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
        }
    }
    return out;
}

// Strings bare, numbers in full (round-trip) precision.
std::string csv_value(const nlohmann::ordered_json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

nlohmann::ordered_json results_json(const ExperimentResults& results) {
    nlohmann::ordered_json j;
    j["experiment"] = results.experiment;
    j["seed"] = results.seed;
    j["fingerprint"] = fingerprint_hex(combined_fingerprint(results.rows));
    j["rows"] = nlohmann::ordered_json::array();
    for (const ResultRow& row : results.rows) {
        nlohmann::ordered_json r;
        r["params"] = row.params;
        r["metrics"] = row.metrics;
        if (!row.profile.empty()) r["profile"] = row.profile;
        r["fingerprint"] = fingerprint_hex(row.fingerprint);
        if (!row.check.empty()) r["check"] = row.check;
        j["rows"].push_back(std::move(r));
    }
    return j;
}

std::string results_csv(const ExperimentResults& results) {
    const std::vector<std::string> params = columns(results, &ResultRow::params);
    const std::vector<std::string> metrics = columns(results, &ResultRow::metrics);
    std::vector<std::string> header = params;
    header.insert(header.end(), metrics.begin(), metrics.end());
    std::string out;
    auto emit = [&out](const std::vector<std::string>& fields) {
        for (size_t i = 0; i < fields.size(); ++i) {
            if (i > 0) out += ',';
            out += csv_field(fields[i]);
        }
        out += "\n";
    };
    emit(header);
    for (const ResultRow& row : results.rows) {
        std::vector<std::string> fields;
        for (const auto& p : params) fields.push_back(row.params.contains(p) ? csv_value(row.params[p]) : "");
        for (const auto& m : metrics) fields.push_back(row.metrics.contains(m) ? csv_value(row.metrics[m]) : "");
        emit(fields);
    }
    return out;
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
        throw std::runtime_error(
            fmt::format("{}: cannot create directory: {}", path.parent_path().string(), ec.message()));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write file", path.string()));
}

}  // namespace ipisim::report
