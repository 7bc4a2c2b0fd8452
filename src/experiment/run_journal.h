// The runs of a long command, kept as they finish in a journal file, so that an interrupted
// command (SIGINT, SIGTERM, a crash) loses only the runs in flight and `--resume` runs the
// others: the runs of an `ipisim sensitivity` screen (DIR/sensitivity_runs.jsonl: every point on
// 2k + 1 machines) and the sampled machines of `--uncertainty N` (DIR/uncertainty_runs.jsonl).
//
// Line 1 says which work it is: the experiment, the ipisim version and commit, the hash of the
// resolved configuration (machine, kernel, every point) and whatever else decides the runs (the
// number of runs, the number of sampled machines); the machines run follow from these. Each
// further line is a finished run, {"run": i, ...}: its number and what the caller recorded
// (sensitivity: "metrics"; a sample: "metrics" and "check"). A line is written whole by one
// write(2), so a killed process leaves whole lines (a power cut may leave a torn last one, which
// --resume drops).
//
//   RunJournal journal(dir / "sensitivity_runs.jsonl", "sensitivity of X", identity, runs, to_run, resume);
//   if (const auto* e = journal.find(i)) { ... } else journal.record(i, {{"metrics", run(i)}});
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "experiment/interrupt.h"

namespace ipisim::experiment {

class RunJournal final : public Interruptible {
public:
    // Runs are numbered 0 .. indices - 1, of which `to_run` run (a machine the model refuses has
    // none). `what` names the work in the interrupt message ("sensitivity of seed000_rar").
    // Without `resume`, a new journal (one already there is replaced). With it, the runs of the
    // journal already there are kept when its first line is `identity`; a journal of other work,
    // or a file that is not one, is a config::ConfigError at --resume, and a missing one starts a
    // new journal. The file is rewritten with what is kept (a torn last line dropped).
    RunJournal(std::filesystem::path file, std::string what, const nlohmann::ordered_json& identity, size_t indices,
               size_t to_run, bool resume);
    ~RunJournal();
    RunJournal(const RunJournal&) = delete;
    RunJournal& operator=(const RunJournal&) = delete;

    [[nodiscard]] const std::filesystem::path& file() const { return file_; }
    // What was recorded for run i, if the journal kept it. The kept runs do not change once the
    // journal is open, so this is safe from any thread.
    [[nodiscard]] const nlohmann::ordered_json* find(size_t run) const;
    [[nodiscard]] size_t kept() const { return kept_.size(); }

    // Appends run i's entry (a JSON object). Thread-safe; nothing is written after
    // close_for_interrupt().
    void record(size_t run, const nlohmann::ordered_json& entry);

    // "WHAT: k of n runs in FILE", or "" once every run is in.
    std::string close_for_interrupt() override;

private:
    void append_line(const std::string& line);

    std::filesystem::path file_;
    std::string what_;
    size_t to_run_;
    std::map<size_t, nlohmann::ordered_json> kept_;  // read at opening, then constant
    std::mutex lock_;
    size_t written_ = 0;  // runs in the file: kept + recorded
    bool closed_ = false;
    int fd_ = -1;
};

}  // namespace ipisim::experiment
