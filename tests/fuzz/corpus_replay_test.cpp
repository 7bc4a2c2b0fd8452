// The fuzz corpus, replayed: tests/fuzz/corpus holds mutants of every shipped and test config
// (tests/fuzz/mutate.py), and this test sends each, with the seed files themselves, through the
// loading and validation path of `ipisim run` (load_experiment, prepare_experiment: machine,
// kernel and every point's parameters; no simulation). Each must load or end in a ConfigError
// located in one of its own files; any other exception fails, and in the -DIPISIM_SANITIZE=ON
// build a crash or an ASan/UBSan report fails the whole test binary. IPISIM_FUZZ_DIR names a
// further folder of mutants (.ci/run writes fresh ones there for each commit), replayed for at
// most IPISIM_FUZZ_SECONDS.
//
// Why a replayed mutation corpus rather than a libFuzzer target: libFuzzer needs clang, and the
// loading path is most of the core (the schema, the machine model, every registered workload and
// kernel component), so a fuzz target means a second full build of the core with clang and
// sanitizers, several minutes on CI's 2 cores before it fuzzes at all. The replay runs in the
// ASan+UBSan build CI already makes, is deterministic (a failure reproduces from the committed
// file), and keeps every input found once as a regression case.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/runner.h"

namespace ipisim::experiment {
namespace {

namespace fs = std::filesystem;

const std::string kSource = IPISIM_SOURCE_DIR;

struct Input {
    std::string experiment;  // the experiment file
    std::string machines;    // its machines folder
};

// Mutant folders (e.toml, optional machines/) under `root`, in name order.
std::vector<Input> mutants(const fs::path& root) {
    std::vector<Input> out;
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(root)) {
        if (entry.is_directory()) dirs.push_back(entry.path());
    }
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& d : dirs) {
        const bool own = fs::is_directory(d / "machines");
        out.push_back({(d / "e.toml").string(), own ? (d / "machines").string() : kSource + "/machines"});
    }
    return out;
}

// The seed files themselves: shipped experiments, good and bad configs.
std::vector<Input> seed_files() {
    std::vector<Input> out;
    for (const char* folder : {"experiments", "tests/data/good_configs", "tests/data/bad_configs"}) {
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(kSource + "/" + folder)) {
            if (entry.path().extension() == ".toml") files.push_back(entry.path());
        }
        std::sort(files.begin(), files.end());
        for (const fs::path& f : files) out.push_back({f.string(), kSource + "/machines"});
    }
    return out;
}

// "" when the input loads or fails with a ConfigError in one of its own files; else what went wrong.
std::string replay(const Input& in) {
    try {
        const Experiment e = load_experiment(in.experiment, {});
        prepare_experiment(e, in.machines);
        return "";
    } catch (const config::ConfigError& e) {
        const std::string& file = e.file();
        const bool own = file == in.experiment || file.rfind(in.machines + "/", 0) == 0;
        if (!own || e.key().empty() || e.problem().empty()) return std::string("unlocated ConfigError: ") + e.what();
        return "";
    } catch (const std::exception& e) {
        return std::string("exception outside the ConfigError contract: ") + e.what();
    } catch (...) {
        return "a non-std exception";
    }
}

// Replays `inputs` in order; with a time budget (seconds > 0), stops when it is spent (the
// harness's own clock: it bounds CI time and never affects what one input does).
void replay_all(const std::vector<Input>& inputs, double seconds = 0) {
    const auto start = std::chrono::steady_clock::now();
    size_t done = 0;
    for (const Input& in : inputs) {
        EXPECT_EQ(replay(in), "") << in.experiment;
        ++done;
        const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
        if (seconds > 0 && spent.count() > seconds) break;
    }
    std::printf("replayed %zu of %zu inputs\n", done, inputs.size());
}

TEST(FuzzCorpus, every_committed_mutant_loads_or_is_a_located_config_error) {
    const std::vector<Input> inputs = mutants(kSource + "/tests/fuzz/corpus");
    ASSERT_GE(inputs.size(), 300U);
    replay_all(inputs);
}

TEST(FuzzCorpus, every_seed_file_loads_or_is_a_located_config_error) {
    const std::vector<Input> inputs = seed_files();
    ASSERT_GE(inputs.size(), 30U);
    replay_all(inputs);
}

TEST(FuzzCorpus, the_mutants_of_ipisim_fuzz_dir_load_or_are_located_config_errors) {
    const char* dir = std::getenv("IPISIM_FUZZ_DIR");
    if (dir == nullptr || *dir == '\0') GTEST_SKIP() << "IPISIM_FUZZ_DIR is not set (.ci/run sets it)";
    const std::vector<Input> inputs = mutants(dir);
    ASSERT_FALSE(inputs.empty()) << dir;
    const char* seconds = std::getenv("IPISIM_FUZZ_SECONDS");
    replay_all(inputs, seconds != nullptr ? std::atof(seconds) : 0.0);
}

}  // namespace
}  // namespace ipisim::experiment
