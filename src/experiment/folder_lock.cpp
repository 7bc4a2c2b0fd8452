#include "experiment/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "config/error.h"
#include "report/file_text.h"

namespace ipisim::experiment {

void refuse_out_folder(const std::filesystem::path& dir, const std::string& problem) {
    throw config::ConfigError(dir.string(), 0, "--out", problem);
}

FolderLock::FolderLock(const std::filesystem::path& dir) {
    const std::filesystem::path path = dir / ".lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) refuse_out_folder(dir, fmt::format("cannot create {}: {}", path.string(), std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        std::string holder = report::file_text(path);
        while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
        ::close(fd_);
        fd_ = -1;
        if (err == EWOULDBLOCK) {
            refuse_out_folder(dir,
                              fmt::format("another ipisim run is writing its results here ({} is held{}); wait for it "
                                          "or choose another --out",
                                          path.string(), holder.empty() ? "" : " by pid " + holder));
        }
        refuse_out_folder(dir, fmt::format("cannot lock {}: {}", path.string(), std::strerror(err)));
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
