#include "cli/console.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace ipisim::cli {

Console::Console(ConsoleOptions options, std::FILE* out, std::FILE* err)
    : options_(options), out_(out), err_(err), start_(std::chrono::steady_clock::now()) {
    tty_ = isatty(fileno(err_)) != 0;
    if (!options_.quiet) {
        progress_ = options_.progress == ProgressMode::always || (options_.progress == ProgressMode::automatic && tty_);
    }
}

Console::~Console() {
    const std::lock_guard<std::mutex> guard(lock_);
    clear_line();
}

void Console::write(std::FILE* to, std::string_view text) {
    if (text.empty()) return;
    clear_line();
    std::fflush(to == out_ ? err_ : out_);
    std::fwrite(text.data(), 1, text.size(), to);
    std::fflush(to);
}

void Console::out(std::string_view text) {
    const std::lock_guard<std::mutex> guard(lock_);
    write(out_, text);
}

void Console::note(std::string_view text) {
    const std::lock_guard<std::mutex> guard(lock_);
    if (!options_.quiet) write(err_, text);
}

void Console::warn(std::string_view text) {
    const std::lock_guard<std::mutex> guard(lock_);
    write(err_, text);
}

void Console::begin(size_t total_points) {
    const std::lock_guard<std::mutex> guard(lock_);
    total_ = total_points;
    done_ = 0;
    start_ = std::chrono::steady_clock::now();
}

void Console::point_started(std::string_view experiment, std::string_view point) {
    const std::lock_guard<std::mutex> guard(lock_);
    experiment_ = experiment;
    point_ = point;
    if (progress_ && tty_) draw(false);
}

void Console::point_finished(std::string_view experiment, std::string_view point) {
    const std::lock_guard<std::mutex> guard(lock_);
    ++done_;
    experiment_ = experiment;
    point_ = point;
    if (progress_) draw(true);
}

void Console::draw(bool final) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    // On a terminal the line shows the point being run; in a file, a line per finished point.
    const size_t shown = final ? done_ : done_ + 1;
    const std::string line = progress_line(shown, done_, total_, experiment_, point_, elapsed);
    std::fflush(out_);
    if (tty_) {
        fmt::print(err_, "\r\033[K{}", line);
        drawn_ = true;
    } else {
        fmt::print(err_, "{}\n", line);
    }
    std::fflush(err_);
}

void Console::clear_line() {
    if (!drawn_) return;
    fmt::print(err_, "\r\033[K");
    std::fflush(err_);
    drawn_ = false;
}

std::string Console::progress_line(size_t shown, size_t finished, size_t total, std::string_view experiment,
                                   std::string_view point, double elapsed_seconds) {
    std::string s = fmt::format("[{}/{}] {}", shown, total, experiment);
    if (!point.empty()) s += fmt::format(" {}", point);
    s += fmt::format("  {}", duration_text(elapsed_seconds));
    if (finished > 0 && finished < total) {
        const double per_point = elapsed_seconds / static_cast<double>(finished);
        s += fmt::format(", ETA {}", duration_text(per_point * static_cast<double>(total - finished)));
    }
    return s;
}

std::string Console::duration_text(double seconds) {
    const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
    if (s < 60) return fmt::format("{} s", s);
    if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
    return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

}  // namespace ipisim::cli
