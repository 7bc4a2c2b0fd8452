#include "report/results_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "config/error.h"
#include "report/atomic_file.h"

namespace ipisim::report {

namespace {

using Json = nlohmann::ordered_json;
using Field = Json ResultRow::*;

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
std::string csv_value(const Json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// The optional object members of a row, in the order row_json writes them.
struct OptionalMember {
    const char* key;
    Field field;
};
constexpr OptionalMember kObjectsBeforeFingerprint[] = {
    {"undefined", &ResultRow::undefined},
    {"metrics_interval", &ResultRow::metrics_interval},
    {"metrics_median", &ResultRow::metrics_median},
    {"metrics_runs", &ResultRow::metrics_runs},
    {"published", &ResultRow::published},
    {"latency", &ResultRow::latency},
    {"profile", &ResultRow::profile},
    {"check", &ResultRow::check},
};

// Reading a row: `fail(member, problem)` throws; problem is "missing" or what is wrong.
using Fail = std::function<void(const std::string& member, const std::string& problem)>;

const Json* member(const Json& row, const char* key, bool required, const Fail& fail) {
    if (row.contains(key)) return &row[key];
    if (required) fail(key, "missing");
    return nullptr;
}

std::string expected(const char* what, const Json& v) {
    return fmt::format("expected {}, got {}", what, v.type_name());
}

// strict: every member row_json always writes is required; otherwise only params and metrics,
// and a row without "point" is point `index`.
ResultRow parse_row(const Json& j, size_t index, bool strict, const Fail& fail) {
    if (!j.is_object()) fail("", expected("an object", j));
    ResultRow row;
    row.point = index;
    if (const Json* v = member(j, "point", strict, fail)) {
        if (!v->is_number_unsigned()) fail("point", expected("a point index", *v));
        row.point = v->get<size_t>();
    }
    for (const auto& [key, field] : {std::pair{"params", &ResultRow::params}, {"metrics", &ResultRow::metrics}}) {
        const Json* v = member(j, key, true, fail);
        if (!v->is_object()) fail(key, expected("object", *v));
        row.*field = *v;
    }
    for (const OptionalMember& m : kObjectsBeforeFingerprint) {
        const Json* v = member(j, m.key, false, fail);
        if (v == nullptr) continue;
        if (!v->is_object()) fail(m.key, expected("object", *v));
        row.*m.field = *v;
    }
    if (const Json* v = member(j, "fingerprint", strict, fail)) {
        const std::string fp = v->is_string() ? v->get<std::string>() : "";
        if (fp.size() != 16 || fp.find_first_not_of("0123456789abcdef") != std::string::npos) {
            fail("fingerprint", "expected 16 hex digits");
        }
        row.fingerprint = std::stoull(fp, nullptr, 16);
    }
    if (const Json* v = member(j, "events", strict, fail)) {
        if (!v->is_number_unsigned()) fail("events", expected("a count", *v));
        row.events = v->get<uint64_t>();
    }
    if (const Json* v = member(j, "simulated_seconds", strict, fail)) {
        if (!v->is_number()) fail("simulated_seconds", expected("number", *v));
        row.simulated_seconds = v->get<double>();
    }
    return row;
}

// Reading results.json back: any mistake names the file and the member.
class Reader {
public:
    explicit Reader(std::string file) : file_(std::move(file)) {}
    [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
        throw config::ConfigError(file_, 0, key, problem);
    }
    const Json& member(const Json& obj, const std::string& where, const char* key, Json::value_t type,
                       bool required) const {
        static const Json missing;
        const std::string path = where.empty() ? key : where + "." + key;
        if (!obj.contains(key)) {
            if (required) fail(path, "missing");
            return missing;
        }
        const auto& v = obj[key];
        const bool ok = type == Json::value_t::number_float ? v.is_number() : v.type() == type;
        if (!ok) fail(path, fmt::format("expected {}, got {}", Json(type).type_name(), v.type_name()));
        return v;
    }

private:
    std::string file_;
};

}  // namespace

Json row_json(const ResultRow& row) {
    Json r;
    r["point"] = row.point;
    r["params"] = row.params;
    r["metrics"] = row.metrics;
    for (const OptionalMember& m : kObjectsBeforeFingerprint) {
        if (!(row.*m.field).empty()) r[m.key] = row.*m.field;
    }
    r["fingerprint"] = fingerprint_hex(row.fingerprint);
    r["events"] = row.events;
    r["simulated_seconds"] = row.simulated_seconds;
    return r;
}

ResultRow row_from_json(const Json& j) {
    return parse_row(j, 0, true, [](const std::string& key, const std::string& problem) {
        if (key.empty()) throw std::runtime_error(fmt::format("a row is not a row: {}", problem));
        if (problem == "missing") throw std::runtime_error(fmt::format("a row has no \"{}\"", key));
        throw std::runtime_error(fmt::format("a row's \"{}\": {}", key, problem));
    });
}

Json results_json(const ExperimentResults& results) {
    Json j;
    j["experiment"] = results.experiment;
    if (!results.description.empty()) j["description"] = results.description;
    if (!results.ipisim_version.empty()) j["ipisim_version"] = results.ipisim_version;
    if (!results.git_commit.empty()) j["git_commit"] = results.git_commit;
    if (!results.machine.empty()) j["machine"] = results.machine;
    if (!results.machine_description.empty()) j["machine_description"] = results.machine_description;
    if (!results.machine_hash.empty()) j["machine_hash"] = results.machine_hash;
    if (!results.kernel.empty()) j["kernel"] = results.kernel;
    j["seed"] = results.seed;
    if (results.runs > 1) j["runs"] = results.runs;
    j["fingerprint"] = fingerprint_hex(combined_fingerprint(results.rows));
    j["swept"] = results.swept;
    if (!results.report.empty()) j["report"] = results.report;
    if (!results.published_source.empty()) j["published_source"] = results.published_source;
    if (!results.published_note.empty()) j["published_note"] = results.published_note;
    if (!results.uncertainty.empty()) j["uncertainty"] = results.uncertainty;
    j["rows"] = Json::array();
    for (const ResultRow& row : results.rows) j["rows"].push_back(row_json(row));
    return j;
}

ExperimentResults read_results_json(const std::filesystem::path& path) {
    using T = Json::value_t;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw config::ConfigError(path.string(), 0, "(file)", "cannot read it");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Json j = Json::parse(text, nullptr, false);
    const Reader r(path.string());
    if (j.is_discarded()) r.fail("(file)", "not valid JSON");
    if (!j.is_object()) r.fail("(file)", "expected a JSON object");
    ExperimentResults out;
    out.experiment = r.member(j, "", "experiment", T::string, true).get<std::string>();
    for (const auto& [key, member] : {std::pair{"description", &ExperimentResults::description},
                                      {"ipisim_version", &ExperimentResults::ipisim_version},
                                      {"git_commit", &ExperimentResults::git_commit},
                                      {"machine", &ExperimentResults::machine},
                                      {"machine_description", &ExperimentResults::machine_description},
                                      {"machine_hash", &ExperimentResults::machine_hash},
                                      {"kernel", &ExperimentResults::kernel},
                                      {"published_source", &ExperimentResults::published_source},
                                      {"published_note", &ExperimentResults::published_note}}) {
        if (j.contains(key)) out.*member = r.member(j, "", key, T::string, true).get<std::string>();
    }
    if (j.contains("seed")) out.seed = r.member(j, "", "seed", T::number_float, true).get<uint64_t>();
    if (j.contains("runs")) out.runs = r.member(j, "", "runs", T::number_float, true).get<uint32_t>();
    if (j.contains("swept")) {
        for (const auto& k : r.member(j, "", "swept", T::array, true)) {
            if (!k.is_string()) r.fail("swept", "expected strings");
            out.swept.push_back(k.get<std::string>());
        }
    }
    if (j.contains("report")) out.report = r.member(j, "", "report", T::object, true);
    if (j.contains("uncertainty")) out.uncertainty = r.member(j, "", "uncertainty", T::object, true);
    const auto& rows = r.member(j, "", "rows", T::array, true);
    for (size_t i = 0; i < rows.size(); ++i) {
        const std::string where = fmt::format("rows[{}]", i);
        out.rows.push_back(parse_row(rows[i], i, false, [&](const std::string& key, const std::string& problem) {
            r.fail(key.empty() ? where : where + "." + key, problem);
        }));
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
    write_file_atomically(path, text);
}

}  // namespace ipisim::report
