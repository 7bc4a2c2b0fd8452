// A results folder (--out DIR) that is never lost or corrupted:
//
//   DIR/.lock          flock'ed by the one run writing here (its pid inside)
//   DIR/results.json   every finished point, rewritten as each one finishes; "complete": false
//                      until the last, so an interrupted run leaves the points it did
//   DIR/config.toml    the resolved configuration (written before the first point)
//   DIR/results.csv    written when the run is complete
//
// Every file is replaced atomically (report/atomic_file.h). results.json is the commit record:
// it is written first (complete: false) and last (complete: true), so "complete": true means
// every file of the folder belongs to it. Besides what every results.json says (the experiment,
// ipisim version and git commit, machine, ...; report/results_files.h) it names the hash of
// config.toml, the number of sweep points and (shards) the shard; each row its point index and
// the hash of that point's resolved configuration (what --resume compares).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/folder_lock.h"
#include "experiment/interrupt.h"
#include "experiment/runner.h"
#include "experiment/shard.h"
#include "report/results.h"

namespace ipisim::experiment {

// What a results folder belongs to.
struct FolderIdentity {
    // Everything results.json says besides its rows (runner.h describe_results): the
    // experiment, its seed, the ipisim version and git commit, the machine and its hash, ...
    report::ExperimentResults header;
    std::string config_text;  // config.toml
    std::string config_hash;  // of config_text
    size_t points = 0;        // sweep points of the whole experiment
    std::optional<Shard> shard;
    std::vector<std::string> point_hashes;             // by point: the hash of its resolved configuration
    std::vector<nlohmann::ordered_json> point_params;  // by point: its row's params
};
FolderIdentity identity_of(const PreparedExperiment& prepared, std::optional<Shard> shard);

// The first line of a journal of runs of `prepared` (run_journal.h): its experiment, the ipisim
// version and commit, and the resolved configuration's hash; callers add what else decides
// their runs (their number, the number of sampled machines).
nlohmann::ordered_json journal_identity(const PreparedExperiment& prepared);

struct FolderOptions {
    bool resume = false;  // keep rows whose point, params and point hash match
    bool force = false;   // replace a folder of another experiment, or one that is not ours
};

// results.json of a folder: report::results_json(results) (rows in point order) with the
// commit record after "seed" ("config_hash", "points", "complete": whether every point is
// there, and "shard") and each row's "point_hash".
nlohmann::ordered_json folder_json(const FolderIdentity& id, const report::ExperimentResults& results, bool complete);

// The checks the ResultsFolder constructor makes of what DIR holds (its refusals, and that DIR
// can be created), without creating, locking or writing it: for work that runs before the folder
// is opened (the sampled machines of --uncertainty), so that a refused --out costs none of it.
void check_results_folder(const std::filesystem::path& dir, const std::string& experiment,
                          const FolderOptions& options);

class ResultsFolder final : public Interruptible {
public:
    // Creates and locks DIR, then checks what it holds. Refused (config::ConfigError at --out,
    // exit 2): a folder another run is writing; unless force, one holding results of another
    // experiment, a results.json that is not ours, or a config.toml/results.csv without one.
    ResultsFolder(std::filesystem::path dir, FolderIdentity id, const FolderOptions& options);
    ~ResultsFolder();
    ResultsFolder(const ResultsFolder&) = delete;
    ResultsFolder& operator=(const ResultsFolder&) = delete;

    [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
    [[nodiscard]] const FolderIdentity& identity() const { return id_; }
    // The rows --resume keeps, by point.
    [[nodiscard]] const std::map<size_t, report::ResultRow>& kept() const { return rows_; }

    // results.json (complete: false, the kept rows), a stale results.csv removed, config.toml.
    void begin();
    // Adds a finished point and rewrites results.json. Thread-safe.
    void record(const report::ResultRow& row);
    // results.csv, then results.json complete: true (results: the identity's header, rows: every
    // point, in order). Returns the text of results.json.
    std::string finish(const report::ExperimentResults& results);
    // For the interrupt message: "NAME: k of n points in DIR/results.json (\"complete\": false)", or "" when the
    // folder is complete or never begun. No write happens after it.
    std::string close_for_interrupt() override;

private:
    void write_json_locked(bool complete);

    std::filesystem::path dir_;
    FolderIdentity id_;
    std::optional<FolderLock> folder_lock_;  // DIR/.lock
    std::mutex lock_;
    std::map<size_t, report::ResultRow> rows_;
    bool begun_ = false;
    bool complete_ = false;
    bool closed_ = false;
};

}  // namespace ipisim::experiment
