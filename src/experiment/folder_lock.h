// DIR/.lock, held while this process writes DIR: a second ipisim writing the same folder is
// refused ("DIR: --out: another ipisim run is writing its results here (DIR/.lock is held by pid
// N); wait for it or choose another --out", config::ConfigError, exit 2) instead of both writing
// it. flock(2): released when the object goes, or when the process ends, however it ends.
//
//   experiment::FolderLock lock(dir);   // dir exists; throws if another process holds it
#pragma once

#include <filesystem>
#include <string>

namespace ipisim::experiment {

// The refusal of an --out folder: config::ConfigError "DIR: --out: problem" (exit 2).
[[noreturn]] void refuse_out_folder(const std::filesystem::path& dir, const std::string& problem);

class FolderLock {
public:
    explicit FolderLock(const std::filesystem::path& dir);
    ~FolderLock();
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace ipisim::experiment
