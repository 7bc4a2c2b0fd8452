#include "experiment/results_folder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "config/error.h"
#include "config/writer.h"
#include "report/atomic_file.h"
#include "report/file_text.h"
#include "report/results_files.h"

namespace ipisim::experiment {

FolderIdentity identity_of(const PreparedExperiment& prepared, std::optional<Shard> shard) {
    const Experiment& e = prepared.experiment;
    FolderIdentity id;
    id.header = describe_results(prepared);
    id.config_text = resolved_toml(prepared);
    id.config_hash = report::text_hash(id.config_text);
    id.points = prepared.points.size();
    id.shard = shard;
    for (const PreparedPoint& p : prepared.points) {
        // Everything the point's run depends on: what ran it, its seed, its resolved values.
        const std::string seeds =
            e.runs() > 1 ? fmt::format("{} runs {}", e.seed(), e.runs()) : fmt::format("{}", e.seed());
        const std::string text =
            fmt::format("ipisim {} ({})\nworkload {}\nseed {}\n{}\n{}\nmachine {}", id.header.ipisim_version,
                        id.header.git_commit, e.table.workload, seeds, config::to_toml_text(p.params_written, "params"),
                        config::to_toml_text(p.kernel_written, "kernel"), id.header.machine_hash);
        // With --uncertainty the row also holds the spread over the sampled machines: their plan is
        // part of what the row depends on (a row without intervals is not kept for a run with them,
        // nor the other way round).
        const bool sampled = !prepared.uncertainty.is_null() && !prepared.uncertainty.empty();
        id.point_hashes.push_back(
            report::text_hash(sampled ? text + "\nuncertainty " + prepared.uncertainty.dump() : text));
        id.point_params.push_back(p.row_params);
    }
    return id;
}

nlohmann::ordered_json journal_identity(const PreparedExperiment& prepared) {
    const report::ExperimentResults header = describe_results(prepared);
    return {{"experiment", prepared.experiment.name()},
            {"ipisim_version", header.ipisim_version},
            {"git_commit", header.git_commit},
            {"config_hash", report::text_hash(resolved_toml(prepared))}};
}

nlohmann::ordered_json folder_json(const FolderIdentity& id, const report::ExperimentResults& results, bool complete) {
    const nlohmann::ordered_json plain = report::results_json(results);
    nlohmann::ordered_json j;
    for (auto it = plain.begin(); it != plain.end(); ++it) {
        j[it.key()] = it.value();
        if (it.key() != (results.runs > 1 ? "runs" : "seed")) continue;
        j["config_hash"] = id.config_hash;
        j["points"] = id.points;
        j["complete"] = complete;
        if (id.shard) j["shard"] = id.shard->text();
    }
    for (size_t i = 0; i < results.rows.size(); ++i) {
        const size_t k = results.rows[i].point;
        if (k < id.point_hashes.size()) j["rows"][i]["point_hash"] = id.point_hashes[k];
    }
    return j;
}

namespace {

// What DIR/results.json holds when a run of `experiment` may write DIR (nullopt: nothing to keep,
// no results.json, or one --force replaces); refused (config::ConfigError at --out) as the
// header of results_folder.h says.
std::optional<nlohmann::ordered_json> examine(const std::filesystem::path& dir, const std::string& experiment,
                                              const FolderOptions& options) {
    const std::filesystem::path json_path = dir / "results.json";
    if (!std::filesystem::exists(json_path)) {
        for (const char* name : {"config.toml", "results.csv"}) {
            if (!options.force && std::filesystem::exists(dir / name)) {
                refuse_out_folder(dir,
                                  fmt::format("holds a {} but no results.json: not an ipisim results folder; choose "
                                              "another --out or use --force to replace it",
                                              name));
            }
        }
        return std::nullopt;
    }
    nlohmann::ordered_json old;
    try {
        old = nlohmann::ordered_json::parse(report::file_text(json_path));
    } catch (const nlohmann::json::exception& e) {
        if (options.force) return std::nullopt;
        refuse_out_folder(dir, fmt::format("{} is not an ipisim results file ({}); use --force to replace it",
                                           json_path.string(), e.what()));
    }
    const std::string held =
        old.is_object() && old.contains("experiment") && old["experiment"].is_string() ? old["experiment"] : "";
    if (held != experiment && !options.force) {
        refuse_out_folder(
            dir, held.empty() ? fmt::format("{} names no experiment; use --force to replace it", json_path.string())
                              : fmt::format("holds results of experiment {}, not {}; choose another --out or use "
                                            "--force to replace them",
                                            held, experiment));
    }
    if (held != experiment) return std::nullopt;
    return old;
}

}  // namespace

void check_results_folder(const std::filesystem::path& dir, const std::string& experiment,
                          const FolderOptions& options) {
    if (const std::string problem = report::folder_write_problem(dir); !problem.empty()) {
        refuse_out_folder(dir, "cannot create the directory: " + problem);
    }
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec)) (void)examine(dir, experiment, options);
}

ResultsFolder::ResultsFolder(std::filesystem::path dir, FolderIdentity id, const FolderOptions& options)
    : dir_(std::move(dir)), id_(std::move(id)) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec || !std::filesystem::is_directory(dir_)) {
        refuse_out_folder(
            dir_, fmt::format("cannot create the directory: {}", ec ? ec.message() : "a file of that name exists"));
    }
    folder_lock_.emplace(dir_);
    try {
        const std::optional<nlohmann::ordered_json> old = examine(dir_, id_.header.experiment, options);
        if (!options.resume || !old || !old->contains("rows") || !(*old)["rows"].is_array()) return;
        for (const auto& r : (*old)["rows"]) {
            try {
                report::ResultRow row = report::row_from_json(r);
                const size_t k = row.point;
                const bool ours = k < id_.points && (!id_.shard || id_.shard->contains(k));
                if (!ours || !r.contains("point_hash") || r["point_hash"] != id_.point_hashes[k]) continue;
                if (row.params != id_.point_params[k]) continue;
                rows_[k] = std::move(row);
            } catch (const std::runtime_error&) {
                // A row that is not one we wrote is run again.
            }
        }
    } catch (...) {
        folder_lock_.reset();
        throw;
    }
}

ResultsFolder::~ResultsFolder() = default;

void ResultsFolder::write_json_locked(bool complete) {
    report::ExperimentResults results = id_.header;
    results.rows.reserve(rows_.size());
    for (const auto& [k, row] : rows_) results.rows.push_back(row);
    report::write_file_atomically(dir_ / "results.json", folder_json(id_, results, complete).dump(2) + "\n");
}

void ResultsFolder::begin() {
    std::lock_guard<std::mutex> guard(lock_);
    if (closed_) return;
    write_json_locked(false);
    begun_ = true;
    std::error_code ec;
    std::filesystem::remove(dir_ / "results.csv", ec);
    report::write_file_atomically(dir_ / "config.toml", id_.config_text);
}

void ResultsFolder::record(const report::ResultRow& row) {
    std::lock_guard<std::mutex> guard(lock_);
    if (closed_) return;
    rows_[row.point] = row;
    write_json_locked(false);
}

std::string ResultsFolder::finish(const report::ExperimentResults& results) {
    std::lock_guard<std::mutex> guard(lock_);
    std::string json = folder_json(id_, results, true).dump(2) + "\n";
    if (closed_) return json;
    rows_.clear();
    for (const report::ResultRow& row : results.rows) rows_[row.point] = row;
    report::write_file_atomically(dir_ / "results.csv", report::results_csv(results));
    report::write_file_atomically(dir_ / "results.json", json);
    complete_ = true;
    return json;
}

std::string ResultsFolder::close_for_interrupt() {
    std::lock_guard<std::mutex> guard(lock_);
    closed_ = true;
    if (complete_ || !begun_) return "";
    const size_t share = id_.shard ? shard_points(id_.points, id_.shard).size() : id_.points;
    return fmt::format("{}: {} of {} points in {} (\"complete\": false)", id_.header.experiment, rows_.size(), share,
                       (dir_ / "results.json").string());
}

}  // namespace ipisim::experiment
