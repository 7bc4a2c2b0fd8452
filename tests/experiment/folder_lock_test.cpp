// experiment/folder_lock.h: one writer per folder. flock(2) locks belong to an open file, so a
// second lock in the same process conflicts as one in another process would.
#include "experiment/folder_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "config/error.h"
#include "support/read_file.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

TEST(FolderLock, a_second_writer_of_a_folder_is_refused_naming_the_holder_until_the_first_lets_go) {
    const std::filesystem::path dir = test::scratch_path("folder_lock");
    std::filesystem::create_directories(dir);
    std::optional<FolderLock> first(std::in_place, dir);
    const std::string pid = std::to_string(::getpid());
    EXPECT_EQ(test::read_file(dir / ".lock"), pid + "\n");
    try {
        FolderLock second(dir);
        ADD_FAILURE() << "two locks on one folder";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.problem(), "another ipisim run is writing its results here (" + (dir / ".lock").string() +
                                   " is held by pid " + pid + "); wait for it or choose another --out");
        EXPECT_EQ(e.key(), "--out");
    }
    first.reset();
    EXPECT_NO_THROW(FolderLock again(dir));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ipisim::experiment
