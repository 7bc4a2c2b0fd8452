// report/atomic_file.h: files written whole or not at all, and the check of an output path that
// commands make before any work.
#include "report/atomic_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/scratch_path.h"

using namespace ipisim;
using report::file_write_problem;
using report::folder_write_problem;

namespace {

class OutputPath : public ::testing::Test {
protected:
    void SetUp() override {
        std::filesystem::remove_all(root_);
        std::filesystem::create_directories(root_);
        std::ofstream(root_ / "a_file") << "x";
    }
    void TearDown() override { std::filesystem::remove_all(root_); }

    // The names in root_, sorted: what a check left behind.
    [[nodiscard]] std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(root_)) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }

    std::filesystem::path root_ = test::scratch_path("output_path");
};

TEST_F(OutputPath, a_path_whose_folders_do_not_exist_yet_is_writable_and_the_check_creates_nothing) {
    EXPECT_EQ(file_write_problem(root_ / "new" / "deeper" / "t.json"), "");
    EXPECT_EQ(folder_write_problem(root_ / "new" / "deeper"), "");
    EXPECT_EQ(file_write_problem(root_ / "t.json"), "");
    EXPECT_EQ(names(), std::vector<std::string>{"a_file"});
}

TEST_F(OutputPath, a_regular_file_where_a_folder_must_be_is_named) {
    const std::string want = (root_ / "a_file").string() + " is not a directory";
    EXPECT_EQ(file_write_problem(root_ / "a_file" / "t.json"), want);
    EXPECT_EQ(file_write_problem(root_ / "a_file" / "sub" / "t.json"), want);
    EXPECT_EQ(folder_write_problem(root_ / "a_file"), want);
    EXPECT_EQ(folder_write_problem(root_ / "a_file" / "sub"), want);
}

TEST_F(OutputPath, a_file_path_that_is_a_folder_is_refused) {
    std::filesystem::create_directories(root_ / "d");
    EXPECT_EQ(file_write_problem(root_ / "d"), "is a directory");
    EXPECT_EQ(folder_write_problem(root_ / "d"), "");
}

TEST_F(OutputPath, what_the_check_accepts_is_written) {
    const std::filesystem::path file = root_ / "new" / "t.json";
    ASSERT_EQ(file_write_problem(file), "");
    report::write_file_atomically(file, "{}\n");
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "{}\n");
}

}  // namespace
