#include "report/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ipisim::report {

namespace {

std::runtime_error failure(const std::filesystem::path& path, const char* what, int err) {
    return std::runtime_error(fmt::format("{}: cannot {}: {}", path.string(), what, std::strerror(err)));
}

// A name no other writer (thread or process) uses at the same time.
std::filesystem::path temporary_beside(const std::filesystem::path& path) {
    static std::atomic<unsigned> counter{0};
    return path.parent_path() / fmt::format(".{}.tmp.{}.{}", path.filename().string(), getpid(), counter++);
}

void write_all(int fd, const std::string& text, const std::filesystem::path& tmp) {
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw failure(tmp, "write", errno);
        done += static_cast<size_t>(n);
    }
}

void sync_directory(const std::filesystem::path& dir) {
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;  // the rename happened; only its durability is not forced
    ::fsync(fd);
    ::close(fd);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
    const std::filesystem::path dir = path.parent_path();
    if (!dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) throw std::runtime_error(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
    }
    const std::filesystem::path tmp = temporary_beside(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw failure(path, "create a temporary file beside it", errno);
    try {
        write_all(fd, text, tmp);
        if (::fsync(fd) != 0) throw failure(tmp, "flush to disk", errno);
    } catch (...) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw failure(tmp, "close", err);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw failure(path, "replace", err);
    }
    sync_directory(dir);
}

namespace {

// Creates and removes a temporary file beside `path`: "" or why it could not be created.
std::string creation_problem(const std::filesystem::path& path) {
    const std::filesystem::path tmp = temporary_beside(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        const std::filesystem::path dir = path.parent_path();
        return fmt::format("cannot create a file in {}: {}", dir.empty() ? "." : dir.string(), std::strerror(errno));
    }
    ::close(fd);
    ::unlink(tmp.c_str());
    return "";
}

}  // namespace

std::string folder_write_problem(const std::filesystem::path& dir) {
    // The folder, or the nearest of its ancestors that exists: the one the writer creates in.
    std::filesystem::path p = dir.empty() ? std::filesystem::path(".") : dir;
    std::error_code ec;
    while (!std::filesystem::exists(p, ec)) {
        const std::filesystem::path up = p.parent_path();
        if (up.empty() || up == p) {
            p = up.empty() ? std::filesystem::path(".") : up;
            break;
        }
        p = up;
    }
    if (!std::filesystem::is_directory(p, ec)) return fmt::format("{} is not a directory", p.string());
    return creation_problem(p / "output");
}

std::string file_write_problem(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return "is a directory";
    return folder_write_problem(path.parent_path());
}

}  // namespace ipisim::report
