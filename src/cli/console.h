// What `run` and `reproduce` print, and where: results on stdout, progress and notes on
// stderr, so that `ipisim reproduce > out.txt 2>&1` never cuts a line. Every write is whole
// lines, flushed, and the other stream is flushed first; a progress line on a terminal is
// redrawn in place ("\r") and cleared before anything else is written.
//
//   Console con(ConsoleOptions{.quiet = false, .progress = ProgressMode::automatic});
//   con.begin(24);                          // the points to run, for the ETA
//   con.point_started("seed000_rar", "threads=10 flush=ipi");
//   con.point_finished("seed000_rar", "threads=10 flush=ipi");
//                                           // "[3/24] seed000_rar threads=10 flush=ipi  12 s, ETA 40 s"
//   con.out(table_text);                    // stdout
//   con.note("results in results/x\n");     // stderr, unless quiet
//
// Progress is shown on a terminal (stderr is a tty) or with --progress, never with --quiet.
// It uses the host's clock for the elapsed time and the ETA only: nothing in the model does.
// Every member may be called from any thread (points run on several, --jobs): calls are
// serialized, so lines never mix.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

namespace ipisim::cli {

enum class ProgressMode { automatic, always, never };

struct ConsoleOptions {
    bool quiet = false;  // no progress, no notes (warnings and errors still go to stderr)
    ProgressMode progress = ProgressMode::automatic;
};

class Console {
public:
    explicit Console(ConsoleOptions options, std::FILE* out = stdout, std::FILE* err = stderr);
    ~Console();
    Console(const Console&) = delete;
    Console& operator=(const Console&) = delete;

    [[nodiscard]] bool quiet() const { return options_.quiet; }
    [[nodiscard]] bool shows_progress() const { return progress_; }

    // Results (tables, JSON): always written.
    void out(std::string_view text);
    // Informational lines on stderr (where results went, host time): not with --quiet.
    void note(std::string_view text);
    // Warnings ("ipisim: warning: ...") on stderr, even with --quiet.
    void warn(std::string_view text);

    // The number of points the whole command will run (the ETA's denominator).
    void begin(size_t total_points);
    // A point starts: what it is ("seed000_rar", "threads=10 flush=ipi").
    void point_started(std::string_view experiment, std::string_view point);
    // A point is done (with --jobs, not necessarily the one started last).
    void point_finished(std::string_view experiment, std::string_view point);

    // "[3/24] seed000_rar threads=10 flush=ipi  12 s, ETA 1 min 04 s": point `shown` of
    // `total`, the host time since begin(), and an ETA from the `finished` points' mean time.
    static std::string progress_line(size_t shown, size_t finished, size_t total, std::string_view experiment,
                                     std::string_view point, double elapsed_seconds);
    // "45 s", "3 min 20 s", "1 h 05 min".
    static std::string duration_text(double seconds);

private:
    void draw(bool final);
    void clear_line();
    void write(std::FILE* to, std::string_view text);

    std::mutex lock_;  // one call at a time
    ConsoleOptions options_;
    std::FILE* out_;
    std::FILE* err_;
    bool progress_ = false;
    bool tty_ = false;  // redraw in place
    bool drawn_ = false;
    size_t total_ = 0;
    size_t done_ = 0;
    std::string experiment_;
    std::string point_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace ipisim::cli
