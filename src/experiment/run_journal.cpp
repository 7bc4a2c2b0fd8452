#include "experiment/run_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "config/error.h"
#include "report/atomic_file.h"

namespace ipisim::experiment {

namespace {

using Json = nlohmann::ordered_json;

// The runs of the journal at `file`, if it is one of the work `identity` (of `total` runs).
std::map<size_t, Json> read_kept(const std::filesystem::path& file, const Json& identity, size_t total) {
    std::map<size_t, Json> kept;
    std::ifstream in(file, std::ios::binary);
    if (!in) return kept;  // nothing to resume: a new journal
    const auto refuse = [&](const std::string& why) {
        return config::ConfigError("--resume", 0, file.string(),
                                   why + "; drop --resume to start again, or choose another --out");
    };
    std::string line;
    if (!std::getline(in, line)) return kept;  // empty: as if new
    const Json first = Json::parse(line, nullptr, false);
    if (first.is_discarded() || !first.is_object() || !first.contains("experiment")) {
        throw refuse("not a journal of runs (its first line does not say what work it holds)");
    }
    if (first != identity) {
        std::string differs;
        for (const auto& [key, value] : identity.items()) {
            const Json there = first.value(key, Json());
            if (there == value) continue;
            differs +=
                fmt::format("{}{} {} there, {} here", differs.empty() ? "" : ", ", key, there.dump(), value.dump());
        }
        throw refuse(
            fmt::format("holds the runs of other work ({}: another experiment, --set, machine file, "
                        "ipisim build or number of sampled machines)",
                        differs.empty() ? first.dump() : differs));
    }
    size_t number = 1;
    while (std::getline(in, line)) {
        ++number;
        Json j = Json::parse(line, nullptr, false);
        const bool whole = !j.is_discarded() && j.is_object() && j.contains("run") && j["run"].is_number_unsigned();
        if (!whole) {
            if (in.peek() == std::char_traits<char>::eof()) break;  // a torn last line: dropped
            throw refuse(fmt::format("line {} is not a finished run", number));
        }
        const auto run = j["run"].get<size_t>();
        if (run >= total) throw refuse(fmt::format("line {}: run {} of work of {} runs", number, run, total));
        j.erase("run");
        kept[run] = std::move(j);
    }
    return kept;
}

std::string run_line(size_t run, const Json& entry) {
    Json line = {{"run", run}};
    for (const auto& [key, value] : entry.items()) line[key] = value;
    return line.dump() + "\n";
}

}  // namespace

RunJournal::RunJournal(std::filesystem::path file, std::string what, const Json& identity, size_t indices,
                       size_t to_run, bool resume)
    : file_(std::move(file)), what_(std::move(what)), to_run_(to_run) {
    if (resume) kept_ = read_kept(file_, identity, indices);
    std::string text = identity.dump() + "\n";
    for (const auto& [run, entry] : kept_) text += run_line(run, entry);
    report::write_file_atomically(file_, text);
    written_ = kept_.size();
    fd_ = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0) {
        throw std::runtime_error(
            fmt::format("{}: cannot open for appending: {}", file_.string(), std::strerror(errno)));
    }
}

RunJournal::~RunJournal() {
    if (fd_ >= 0) ::close(fd_);
}

const Json* RunJournal::find(size_t run) const {
    const auto it = kept_.find(run);
    return it == kept_.end() ? nullptr : &it->second;
}

void RunJournal::record(size_t run, const Json& entry) {
    const std::string line = run_line(run, entry);
    const std::lock_guard<std::mutex> guard(lock_);
    if (closed_) return;
    append_line(line);
    ++written_;
}

void RunJournal::append_line(const std::string& line) {
    // One write: a process killed around it leaves the line whole or absent.
    const ssize_t n = ::write(fd_, line.data(), line.size());
    if (n != static_cast<ssize_t>(line.size())) {
        throw std::runtime_error(
            fmt::format("{}: cannot append a run: {}", file_.string(), n < 0 ? std::strerror(errno) : "short write"));
    }
}

std::string RunJournal::close_for_interrupt() {
    const std::lock_guard<std::mutex> guard(lock_);
    closed_ = true;
    if (written_ >= to_run_) return "";
    return fmt::format("{}: {} of {} runs in {}", what_, written_, to_run_, file_.string());
}

}  // namespace ipisim::experiment
