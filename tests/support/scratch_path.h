// Test support: a path under the temporary directory that belongs to this test process alone.
// ctest runs every test case as its own process and several at once (-j), so two cases of one
// file that wrote the same fixed name raced each other (one read the other's half-written
// file). Every path lies in a folder of this process's own, ipisim-test-<pid>, which is removed
// when the process exits: before it, each test run left about 90 files and folders behind in the
// temporary directory, some 13,000 after a few weeks of runs.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace ipisim::test {

namespace detail {

// The process's scratch folder, created on first use and removed at exit. A forked child that
// exits normally would remove its parent's folder too, so only the process that made it does.
class ScratchRoot {
public:
    ScratchRoot()
        : owner_(::getpid()), dir_(std::filesystem::temp_directory_path() / ("ipisim-test-" + std::to_string(owner_))) {
        std::filesystem::create_directories(dir_);
    }
    ScratchRoot(const ScratchRoot&) = delete;
    ScratchRoot& operator=(const ScratchRoot&) = delete;
    ~ScratchRoot() {
        if (::getpid() != owner_) return;
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);  // best effort: nothing to report to at exit
    }
    [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

private:
    pid_t owner_;
    std::filesystem::path dir_;
};

inline const std::filesystem::path& scratch_root() {
    static const ScratchRoot root;
    return root.dir();
}

}  // namespace detail

inline std::filesystem::path scratch_path(const std::string& name) {
    return detail::scratch_root() / name;
}

}  // namespace ipisim::test
