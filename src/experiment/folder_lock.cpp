#include "experiment/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "config/error.h"

namespace ipisim::experiment {

namespace {

[[noreturn]] void refuse(const std::filesystem::path& dir, const std::string& problem) {
    throw config::ConfigError(dir.string(), 0, "--out", problem);
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

FolderLock::FolderLock(const std::filesystem::path& dir) {
    const std::filesystem::path path = dir / ".lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) refuse(dir, fmt::format("cannot create {}: {}", path.string(), std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        std::string holder = read_file(path);
        while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
        ::close(fd_);
        fd_ = -1;
        if (err == EWOULDBLOCK) {
            refuse(dir, fmt::format("another ipisim run is writing its results here ({} is held{}); wait for it "
                                    "or choose another --out",
                                    path.string(), holder.empty() ? "" : " by pid " + holder));
        }
        refuse(dir, fmt::format("cannot lock {}: {}", path.string(), std::strerror(err)));
    }
    const std::string pid = fmt::format("{}\n", ::getpid());
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
        // The pid only makes the message of a second run clearer; the lock is what counts.
    }
}

FolderLock::~FolderLock() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace ipisim::experiment
