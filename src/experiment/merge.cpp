#include "experiment/merge.h"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "config/error.h"
#include "report/results_files.h"

namespace ipisim::experiment {

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void refuse(const std::filesystem::path& dir, const std::string& problem) {
    throw config::ConfigError(dir.string(), 0, "merge", problem);
}

std::optional<std::string> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The members of results.json that differ between the shards of one run.
bool shard_specific(const std::string& key) {
    return key == "shard" || key == "fingerprint" || key == "rows";
}

// One shard folder as read and checked on its own.
struct ShardFolder {
    std::filesystem::path dir;
    Json json;
    std::string config_text;
    Shard shard;
    report::ExperimentResults results;  // its header, and its rows (strictly read)
    std::vector<std::string> point_hashes;
};

const Json& field(const ShardFolder& f, const char* name) {
    if (!f.json.contains(name)) refuse(f.dir, fmt::format("results.json has no \"{}\": not written by ipisim", name));
    return f.json[name];
}

ShardFolder read_folder(const std::filesystem::path& dir) {
    ShardFolder f;
    f.dir = dir;
    const std::optional<std::string> text = read_file(dir / "results.json");
    if (!text) refuse(dir, "no results.json: not a results folder");
    f.json = Json::parse(*text, nullptr, false);
    if (f.json.is_discarded()) refuse(dir, "results.json is not JSON");
    if (!f.json.is_object()) refuse(dir, "results.json is not an object: not written by ipisim");
    for (const char* name : {"experiment", "seed", "ipisim_version", "config_hash", "points", "complete", "rows"})
        field(f, name);
    if (!field(f, "complete").is_boolean() || !field(f, "complete").get<bool>()) {
        refuse(dir, fmt::format("the run is not complete ({} rows): finish it with --resume first",
                                field(f, "rows").size()));
    }
    if (!field(f, "points").is_number_unsigned() || !field(f, "rows").is_array()) {
        refuse(dir, "results.json has a bad \"points\" or \"rows\": not written by ipisim");
    }
    f.shard = Shard{0, 1};
    if (f.json.contains("shard")) {
        std::string problem;
        const std::optional<Shard> s =
            f.json["shard"].is_string() ? parse_shard(f.json["shard"].get<std::string>(), &problem) : std::nullopt;
        if (!s) refuse(dir, fmt::format("results.json has a bad \"shard\" ({})", f.json["shard"].dump()));
        f.shard = *s;
    }
    const std::optional<std::string> config = read_file(dir / "config.toml");
    if (!config) refuse(dir, "no config.toml");
    f.config_text = *config;
    if (report::text_hash(f.config_text) != field(f, "config_hash")) {
        refuse(dir, "config.toml is not the configuration results.json was run with (its hash differs)");
    }
    f.results = report::read_results_json(dir / "results.json");  // the header; ConfigError if malformed
    f.results.rows.clear();
    const size_t points = field(f, "points").get<size_t>();
    for (const auto& r : field(f, "rows")) {
        report::ResultRow row;
        try {
            row = report::row_from_json(r);
        } catch (const std::runtime_error& e) {
            refuse(dir, fmt::format("results.json: {}", e.what()));
        }
        if (row.point >= points || !f.shard.contains(row.point)) {
            refuse(dir, fmt::format("results.json has point {}, which is not in shard {} of {} points", row.point,
                                    f.shard.text(), points));
        }
        if (!r.contains("point_hash") || !r["point_hash"].is_string()) {
            refuse(dir, fmt::format("results.json: point {} has no point_hash", row.point));
        }
        f.point_hashes.push_back(r["point_hash"].get<std::string>());
        f.results.rows.push_back(std::move(row));
    }
    return f;
}

// The shard's results.json must be exactly what this ipisim writes from what it read, or the
// merged file would not be the one an unsharded run writes (a member this version does not know).
void check_reads_back(const ShardFolder& f) {
    FolderIdentity id;
    id.config_hash = f.json["config_hash"].get<std::string>();
    id.points = f.json["points"].get<size_t>();
    id.shard = f.json.contains("shard") ? std::optional<Shard>(f.shard) : std::nullopt;
    id.point_hashes.resize(id.points);
    for (size_t r = 0; r < f.results.rows.size(); ++r) id.point_hashes[f.results.rows[r].point] = f.point_hashes[r];
    if (folder_json(id, f.results, true) != f.json) {
        refuse(f.dir, "results.json holds members this ipisim does not write: merge it with the ipisim that ran it");
    }
}

}  // namespace

MergedShards read_shards(const std::vector<std::filesystem::path>& dirs) {
    if (dirs.empty()) throw config::ConfigError("merge", 0, "DIR", "name the shard folders to merge");
    std::vector<ShardFolder> folders;
    for (const auto& dir : dirs) {
        folders.push_back(read_folder(dir));
        check_reads_back(folders.back());
    }
    const ShardFolder& first = folders.front();
    std::map<size_t, const ShardFolder*> by_index;
    for (const ShardFolder& f : folders) {
        for (const auto& [key, value] : f.json.items()) {
            if (shard_specific(key)) continue;
            const Json there = first.json.contains(key) ? first.json[key] : Json();
            if (value == there) continue;
            refuse(f.dir, fmt::format("is not a shard of the run in {}: {} {} here, {} there", first.dir.string(), key,
                                      value.dump(), there.dump()));
        }
        for (const auto& [key, value] : first.json.items()) {
            if (!shard_specific(key) && !f.json.contains(key)) {
                refuse(f.dir, fmt::format("is not a shard of the run in {}: it has no {}", first.dir.string(), key));
            }
        }
        if (f.shard.count != first.shard.count) {
            refuse(f.dir, fmt::format("is shard {}, but {} is shard {}: the shards of one run have the same N",
                                      f.shard.text(), first.dir.string(), first.shard.text()));
        }
        auto [it, added] = by_index.emplace(f.shard.index, &f);
        if (!added) {
            refuse(f.dir, fmt::format("is shard {} again (so is {})", f.shard.text(), it->second->dir.string()));
        }
    }
    for (size_t i = 0; i < first.shard.count; ++i) {
        if (by_index.count(i) == 0) {
            refuse(first.dir, fmt::format("shard {}/{} of this run is missing", i, first.shard.count));
        }
    }
    const size_t points = first.json["points"].get<size_t>();
    std::vector<std::optional<report::ResultRow>> rows(points);
    std::vector<std::string> hashes(points);
    for (const ShardFolder& f : folders) {
        for (size_t r = 0; r < f.results.rows.size(); ++r) {
            const size_t k = f.results.rows[r].point;
            if (rows[k]) refuse(f.dir, fmt::format("results.json has point {} twice", k));
            rows[k] = f.results.rows[r];
            hashes[k] = f.point_hashes[r];
        }
    }
    MergedShards out;
    out.results = first.results;
    out.results.rows.clear();
    for (size_t k = 0; k < points; ++k) {
        if (!rows[k]) {
            refuse(by_index.at(k % first.shard.count)->dir, fmt::format("results.json lacks point {}", k));
        }
        out.results.rows.push_back(std::move(*rows[k]));
    }
    FolderIdentity& id = out.identity;
    id.header = first.results;
    id.header.rows.clear();
    id.config_text = first.config_text;
    id.config_hash = first.json["config_hash"].get<std::string>();
    id.points = points;
    id.point_hashes = hashes;
    for (const report::ResultRow& row : out.results.rows) id.point_params.push_back(row.params);
    return out;
}

}  // namespace ipisim::experiment
