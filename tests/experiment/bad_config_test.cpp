// The corpus of wrong experiment files in tests/data/bad_configs: each <name>.toml (with the
// overrides in <name>.set, one per line, if present) must be rejected with exactly the message
// in <name>.expected, where {FILE} stands for the file's path and {WORKLOADS} for the list of
// registered workloads. Runs the loader and runner in-process, as `ipisim run` does.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "sim/registry.h"
#include "workload/workload.h"

namespace ipisim::experiment {
namespace {

const std::filesystem::path kCorpus = std::filesystem::path(IPISIM_TEST_DATA) / "bad_configs";

std::vector<std::string> corpus_names() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
        if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> lines_of(const std::filesystem::path& file) {
    std::vector<std::string> out;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) out.push_back(line);
    }
    return out;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
        s.replace(at, from.size(), to);
    }
}

// The message `ipisim run` would print, or "" when the experiment was accepted.
std::string rejection(const std::string& file, const std::vector<std::string>& overrides) {
    try {
        const Experiment e = load_experiment(file, overrides);
        run_experiment(e, RunOptions{});
    } catch (const config::ConfigError& err) {
        return err.what();
    }
    return "";
}

class BadConfig : public testing::TestWithParam<std::string> {};

TEST_P(BadConfig, is_rejected_with_its_expected_file_line_and_key) {
    const std::string file = (kCorpus / (GetParam() + ".toml")).string();
    const std::vector<std::string> expected_lines = lines_of(kCorpus / (GetParam() + ".expected"));
    ASSERT_EQ(expected_lines.size(), 1U) << "missing or malformed " << GetParam() << ".expected";
    std::string expected = expected_lines.front();
    replace_all(expected, "{FILE}", file);
    replace_all(expected, "{WORKLOADS}", sim::Registry<workload::Workload>::instance().names());

    EXPECT_EQ(rejection(file, lines_of(kCorpus / (GetParam() + ".set"))), expected);
}

INSTANTIATE_TEST_SUITE_P(corpus, BadConfig, testing::ValuesIn(corpus_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(BadConfigCorpus, every_expected_message_has_its_config) {
    for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
        if (entry.path().extension() != ".expected" && entry.path().extension() != ".set") continue;
        std::filesystem::path toml = entry.path();
        toml.replace_extension(".toml");
        EXPECT_TRUE(std::filesystem::exists(toml)) << entry.path() << " has no .toml";
    }
}

TEST(BadConfigCorpus, a_missing_file_is_named) {
    EXPECT_EQ(rejection("no/such/experiment.toml", {}), "no/such/experiment.toml: (file): no such file");
}

}  // namespace
}  // namespace ipisim::experiment
