#include "report/results_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "report/atomic_file.h"

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

nlohmann::ordered_json row_json(const ResultRow& row) {
    nlohmann::ordered_json r;
    r["point"] = row.point;
    r["params"] = row.params;
    r["metrics"] = row.metrics;
    if (!row.undefined.empty()) r["undefined"] = row.undefined;
    if (!row.profile.empty()) r["profile"] = row.profile;
    r["fingerprint"] = fingerprint_hex(row.fingerprint);
    r["events"] = row.events;
    r["simulated_seconds"] = row.simulated_seconds;
    return r;
}

ResultRow row_from_json(const nlohmann::ordered_json& j) {
    auto field = [&](const char* name) -> const nlohmann::ordered_json& {
        if (!j.is_object() || !j.contains(name)) throw std::runtime_error(fmt::format("a row has no \"{}\"", name));
        return j[name];
    };
    auto object = [&](const char* name) {
        const nlohmann::ordered_json& v = field(name);
        if (!v.is_object()) throw std::runtime_error(fmt::format("a row's \"{}\" is not an object", name));
        return v;
    };
    ResultRow row;
    try {
        row.point = field("point").get<size_t>();
        row.params = object("params");
        row.metrics = object("metrics");
        if (j.contains("undefined")) row.undefined = object("undefined");
        if (j.contains("profile")) row.profile = object("profile");
        const std::string fp = field("fingerprint").get<std::string>();
        size_t used = 0;
        row.fingerprint = std::stoull(fp, &used, 16);
        if (used != fp.size() || fp.size() != 16) throw std::runtime_error("a row's fingerprint is not 16 hex digits");
        row.events = field("events").get<uint64_t>();
        row.simulated_seconds = field("simulated_seconds").get<double>();
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(fmt::format("a row has a value of the wrong type ({})", e.what()));
    } catch (const std::logic_error& e) {  // std::stoull
        throw std::runtime_error("a row's fingerprint is not 16 hex digits");
    }
    return row;
}

nlohmann::ordered_json results_json(const ExperimentResults& results) {
    nlohmann::ordered_json j;
    j["experiment"] = results.experiment;
    j["seed"] = results.seed;
    j["fingerprint"] = fingerprint_hex(combined_fingerprint(results.rows));
    j["rows"] = nlohmann::ordered_json::array();
    for (const ResultRow& row : results.rows) j["rows"].push_back(row_json(row));
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
    write_file_atomically(path, text);
}

}  // namespace ipisim::report
