// The runs of an `ipisim sensitivity` screen, kept as they finish in DIR/sensitivity_runs.jsonl,
// so that an interrupted screen (SIGINT, SIGTERM, a crash) loses only the runs in flight and
// `--resume` runs the others. A screen is long: every point on 2k + 1 machines (k ranged costs).
//
// Line 1 says which screen it is: the experiment, the ipisim version and commit, the hash of the
// resolved configuration (machine, kernel, every point) and the number of runs; the machines
// screened follow from these (uncertainty.h ranged_costs, value_at). Each further line is a
// finished run, {"run": i, "metrics": {...}}: run i is machine i / points at point i % points,
// machine 0 the nominal one, then each cost at its low end and at its high end. A line is
// written whole by one write(2), so a killed process leaves whole lines (a power cut may leave
// a torn last one, which --resume drops).
//
//   SensitivityJournal journal(dir / "sensitivity_runs.jsonl", identity, total, resume);
//   if (const auto* m = journal.find(i)) { ... } else journal.record(i, run(i));
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "experiment/interrupt.h"

namespace ipisim::experiment {

class SensitivityJournal final : public Interruptible {
public:
    // Runs are numbered 0 .. indices - 1, of which `to_run` run (a machine the model refuses has
    // none). Without `resume`, a new journal (one already there is replaced). With it, the runs
    // of the journal already there are kept when its first line is `identity`; a journal of
    // another screen, or a file that is not one, is a config::ConfigError at --resume, and a
    // missing one starts a new journal. The file is rewritten with what is kept (a torn last
    // line dropped).
    SensitivityJournal(std::filesystem::path file, const nlohmann::ordered_json& identity, size_t indices,
                       size_t to_run, bool resume);
    ~SensitivityJournal();
    SensitivityJournal(const SensitivityJournal&) = delete;
    SensitivityJournal& operator=(const SensitivityJournal&) = delete;

    [[nodiscard]] const std::filesystem::path& file() const { return file_; }
    // The metrics of run i if the journal kept it. The kept runs do not change once the journal
    // is open, so this is safe from any thread.
    [[nodiscard]] const nlohmann::ordered_json* find(size_t run) const;
    [[nodiscard]] size_t kept() const { return kept_.size(); }

    // Appends run i's metrics. Thread-safe; nothing is written after close_for_interrupt().
    void record(size_t run, const nlohmann::ordered_json& metrics);

    // "sensitivity of NAME: k of n runs in FILE", or "" once every run is in.
    std::string close_for_interrupt() override;

private:
    void append_line(const std::string& line);

    std::filesystem::path file_;
    std::string experiment_;
    size_t to_run_;
    std::map<size_t, nlohmann::ordered_json> kept_;  // read at opening, then constant
    std::mutex lock_;
    size_t written_ = 0;  // runs in the file: kept + recorded
    bool closed_ = false;
    int fd_ = -1;
};

}  // namespace ipisim::experiment
