#include "report/results_files.h"

#include <fmt/format.h>

#include "config/error.h"

#include <algorithm>
#include <fstream>
#include <iterator>
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
    if (!results.description.empty()) j["description"] = results.description;
    if (!results.machine.empty()) j["machine"] = results.machine;
    j["seed"] = results.seed;
    j["fingerprint"] = fingerprint_hex(combined_fingerprint(results.rows));
    j["swept"] = results.swept;
    if (!results.report.empty()) j["report"] = results.report;
    if (!results.published_source.empty()) j["published_source"] = results.published_source;
    j["rows"] = nlohmann::ordered_json::array();
    for (const ResultRow& row : results.rows) {
        nlohmann::ordered_json r;
        r["params"] = row.params;
        r["metrics"] = row.metrics;
        if (!row.metrics_interval.empty()) r["metrics_interval"] = row.metrics_interval;
        if (!row.published.empty()) r["published"] = row.published;
        if (!row.latency.empty()) r["latency"] = row.latency;
        if (!row.profile.empty()) r["profile"] = row.profile;
        r["fingerprint"] = fingerprint_hex(row.fingerprint);
        if (!row.check.empty()) r["check"] = row.check;
        j["rows"].push_back(std::move(r));
    }
    return j;
}

namespace {

// Reading results.json back: any mistake names the file and the member.
class Reader {
public:
    explicit Reader(std::string file) : file_(std::move(file)) {}
    [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
        throw config::ConfigError(file_, 0, key, problem);
    }
    const nlohmann::ordered_json& member(const nlohmann::ordered_json& obj, const std::string& where, const char* key,
                                         nlohmann::ordered_json::value_t type, bool required) const {
        static const nlohmann::ordered_json missing;
        const std::string path = where.empty() ? key : where + "." + key;
        if (!obj.contains(key)) {
            if (required) fail(path, "missing");
            return missing;
        }
        const auto& v = obj[key];
        const bool ok = type == nlohmann::ordered_json::value_t::number_float ? v.is_number() : v.type() == type;
        if (!ok)
            fail(path, fmt::format("expected {}, got {}", nlohmann::ordered_json(type).type_name(), v.type_name()));
        return v;
    }

private:
    std::string file_;
};

uint64_t parse_hex(const std::string& s) {
    return s.empty() ? 0 : std::stoull(s, nullptr, 16);
}

}  // namespace

ExperimentResults read_results_json(const std::filesystem::path& path) {
    using T = nlohmann::ordered_json::value_t;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw config::ConfigError(path.string(), 0, "(file)", "cannot read it");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
    const Reader r(path.string());
    if (j.is_discarded()) r.fail("(file)", "not valid JSON");
    if (!j.is_object()) r.fail("(file)", "expected a JSON object");
    ExperimentResults out;
    out.experiment = r.member(j, "", "experiment", T::string, true).get<std::string>();
    if (j.contains("description")) out.description = r.member(j, "", "description", T::string, true);
    if (j.contains("machine")) out.machine = r.member(j, "", "machine", T::string, true);
    if (j.contains("seed")) out.seed = r.member(j, "", "seed", T::number_float, true).get<uint64_t>();
    if (j.contains("swept")) {
        for (const auto& k : r.member(j, "", "swept", T::array, true)) {
            if (!k.is_string()) r.fail("swept", "expected strings");
            out.swept.push_back(k.get<std::string>());
        }
    }
    if (j.contains("report")) out.report = r.member(j, "", "report", T::object, true);
    if (j.contains("published_source")) out.published_source = r.member(j, "", "published_source", T::string, true);
    const auto& rows = r.member(j, "", "rows", T::array, true);
    for (size_t i = 0; i < rows.size(); ++i) {
        const std::string where = fmt::format("rows[{}]", i);
        if (!rows[i].is_object()) r.fail(where, "expected an object");
        ResultRow row;
        row.params = r.member(rows[i], where, "params", T::object, true);
        row.metrics = r.member(rows[i], where, "metrics", T::object, true);
        for (const char* key : {"metrics_interval", "published", "latency", "profile"}) {
            if (!rows[i].contains(key)) continue;
            const auto& v = r.member(rows[i], where, key, T::object, true);
            if (std::string(key) == "metrics_interval") row.metrics_interval = v;
            if (std::string(key) == "published") row.published = v;
            if (std::string(key) == "latency") row.latency = v;
            if (std::string(key) == "profile") row.profile = v;
        }
        if (rows[i].contains("fingerprint")) {
            const std::string fp = r.member(rows[i], where, "fingerprint", T::string, true);
            if (fp.size() != 16 || fp.find_first_not_of("0123456789abcdef") != std::string::npos) {
                r.fail(where + ".fingerprint", "expected 16 hex digits");
            }
            row.fingerprint = parse_hex(fp);
        }
        out.rows.push_back(std::move(row));
    }
    return out;
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
