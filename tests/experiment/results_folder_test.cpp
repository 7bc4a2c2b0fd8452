// Results folders: atomic files, one writer per folder, rows that come back exactly, and the
// folders that are refused before anything runs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/error.h"
#include "experiment/results_folder.h"
#include "experiment/shard.h"
#include "report/atomic_file.h"
#include "report/results_files.h"
#include "support/read_file.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
    const auto dir = ::ipisim::test::scratch_path(("ipisim_results_folder_test_" + name));
    std::filesystem::remove_all(dir);
    return dir;
}

FolderIdentity identity(const std::string& name, size_t points) {
    FolderIdentity id;
    id.header.experiment = name;
    id.header.ipisim_version = "test";
    id.config_text = "[experiment]\nname = \"" + name + "\"\n";
    id.config_hash = report::text_hash(id.config_text);
    id.points = points;
    for (size_t k = 0; k < points; ++k) {
        id.point_hashes.push_back(report::text_hash(std::to_string(k)));
        id.point_params.push_back(nlohmann::ordered_json{{"k", k}});
    }
    return id;
}

report::ResultRow row(size_t k) {
    report::ResultRow r;
    r.point = k;
    r.params = nlohmann::ordered_json{{"k", k}};
    r.metrics = nlohmann::ordered_json{{"x", 0.1 * static_cast<double>(k) + 1e-17}, {"n", k}};
    r.fingerprint = 0x0123456789abcdefULL + k;
    r.events = 1000 + k;
    r.simulated_seconds = 1.0 / 3.0;
    return r;
}

TEST(AtomicFile, a_replaced_file_holds_the_new_text_and_no_temporary_file_is_left) {
    const auto dir = fresh_dir("atomic");
    report::write_file_atomically(dir / "f.txt", "old");
    report::write_file_atomically(dir / "f.txt", "new text");
    EXPECT_EQ(test::read_file(dir / "f.txt"), "new text");
    size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 1U);
}

TEST(AtomicFile, a_file_that_cannot_be_written_names_its_path) {
    const auto dir = fresh_dir("atomic_fail");
    report::write_file_atomically(dir / "plain", "x");
    try {
        report::write_file_atomically(dir / "plain" / "f.txt", "x");
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find((dir / "plain").string()), std::string::npos) << e.what();
    }
}

TEST(ResultRows, a_row_read_back_from_json_is_the_row_written) {
    report::ResultRow r = row(7);
    r.profile = nlohmann::ordered_json{{"flush_tlb_func (kernel)", 0.25}};
    r.undefined = nlohmann::ordered_json{{"y", "0 loops in the window"}};
    r.metrics["y"] = nullptr;
    r.metrics_interval = nlohmann::ordered_json{{"x", {0.5, 0.75}}};
    r.published = nlohmann::ordered_json{{"x", 0.7}};
    r.latency = nlohmann::ordered_json{{"ipi_delivery", {{"count", 3}, {"p50_ns", 512.5}}}};
    r.check = nlohmann::ordered_json{{"violations", 0}};
    const report::ResultRow back = report::row_from_json(nlohmann::ordered_json::parse(report::row_json(r).dump(2)));
    EXPECT_EQ(report::row_json(back).dump(), report::row_json(r).dump());
    EXPECT_EQ(back.simulated_seconds, r.simulated_seconds);
    EXPECT_EQ(back.fingerprint, r.fingerprint);
    EXPECT_EQ(back.point, 7U);
    EXPECT_EQ(back.events, r.events);
    EXPECT_EQ(back.latency, r.latency);
    EXPECT_EQ(back.published, r.published);
    EXPECT_EQ(back.metrics_interval, r.metrics_interval);
    EXPECT_EQ(back.check, r.check);
    std::vector<std::string> keys;
    const nlohmann::ordered_json written = report::row_json(r);
    for (const auto& [k, v] : written.items()) keys.push_back(k);
    EXPECT_EQ(keys,
              (std::vector<std::string>{"point", "params", "metrics", "undefined", "metrics_interval", "published",
                                        "latency", "profile", "check", "fingerprint", "events", "simulated_seconds"}));
}

TEST(ResultsFolder, results_json_is_the_reports_one_with_the_commit_record_after_the_seed) {
    FolderIdentity id = identity("e", 3);
    id.header.description = "d";
    id.header.git_commit = "abc";
    id.header.machine = "toy4_arm";
    id.header.swept = {"k"};
    id.shard = Shard{1, 2};
    report::ExperimentResults r = id.header;
    r.rows = {row(1)};
    const nlohmann::ordered_json j = folder_json(id, r, false);
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    EXPECT_EQ(keys,
              (std::vector<std::string>{"experiment", "description", "ipisim_version", "git_commit", "machine", "seed",
                                        "config_hash", "points", "complete", "shard", "fingerprint", "swept", "rows"}));
    EXPECT_EQ(j["shard"], "1/2");
    EXPECT_EQ(j["points"], 3);
    EXPECT_EQ(j["rows"][0]["point_hash"], report::text_hash("1"));
    nlohmann::ordered_json plain = j;
    for (const char* k : {"config_hash", "points", "complete", "shard"}) plain.erase(k);
    plain["rows"][0].erase("point_hash");
    EXPECT_EQ(plain, report::results_json(r));
}

TEST(ResultRows, a_row_without_its_fingerprint_is_an_error_naming_the_field) {
    nlohmann::ordered_json j = report::row_json(row(1));
    j.erase("fingerprint");
    EXPECT_THROW(
        {
            try {
                report::row_from_json(j);
            } catch (const std::runtime_error& e) {
                EXPECT_STREQ(e.what(), "a row has no \"fingerprint\"");
                throw;
            }
        },
        std::runtime_error);
}

TEST(Shards, point_k_belongs_to_shard_k_mod_n) {
    std::string problem;
    const std::optional<Shard> s = parse_shard("1/3", &problem);
    ASSERT_TRUE(s);
    EXPECT_EQ(shard_points(8, s), (std::vector<size_t>{1, 4, 7}));
    EXPECT_EQ(shard_points(3, std::nullopt), (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(s->text(), "1/3");
}

TEST(Shards, a_shard_that_is_not_i_of_n_is_refused_with_the_reason) {
    std::string problem;
    EXPECT_FALSE(parse_shard("3/3", &problem));
    EXPECT_EQ(problem, "shard 3 of 3 does not exist: i must be 0 to N-1");
    EXPECT_FALSE(parse_shard("1/0", &problem));
    EXPECT_FALSE(parse_shard("a/3", &problem));
    EXPECT_EQ(problem, "expected i/N (shard i of N, counting from 0), got \"a/3\"");
    EXPECT_FALSE(parse_shard("1", &problem));
    EXPECT_FALSE(parse_shard("-1/3", &problem));
}

TEST(ResultsFolder, each_recorded_point_is_in_results_json_at_once_marked_incomplete) {
    const auto dir = fresh_dir("record");
    ResultsFolder f(dir, identity("e", 3), {});
    f.begin();
    EXPECT_EQ(test::read_file(dir / "config.toml"), "[experiment]\nname = \"e\"\n");
    f.record(row(2));
    const auto j = nlohmann::ordered_json::parse(test::read_file(dir / "results.json"));
    EXPECT_FALSE(j["complete"].get<bool>());
    ASSERT_EQ(j["rows"].size(), 1U);
    EXPECT_EQ(j["rows"][0]["point"], 2);
    EXPECT_EQ(j["rows"][0]["point_hash"], report::text_hash("2"));
    EXPECT_FALSE(std::filesystem::exists(dir / "results.csv"));
    EXPECT_EQ(f.close_for_interrupt(),
              "e: 1 of 3 points in " + (dir / "results.json").string() + " (\"complete\": false)");
}

TEST(ResultsFolder, a_second_writer_of_one_folder_is_refused_while_the_first_holds_it) {
    const auto dir = fresh_dir("lock");
    {
        ResultsFolder first(dir, identity("e", 1), {});
        try {
            ResultsFolder second(dir, identity("e", 1), {});
            FAIL() << "no error";
        } catch (const config::ConfigError& e) {
            EXPECT_EQ(e.key(), "--out");
            EXPECT_NE(e.problem().find("another ipisim run is writing its results here"), std::string::npos);
        }
    }
    EXPECT_NO_THROW(ResultsFolder(dir, identity("e", 1), {}));  // released with the first
}

TEST(ResultsFolder, results_of_another_experiment_are_refused_unless_forced) {
    const auto dir = fresh_dir("other");
    {
        ResultsFolder f(dir, identity("a", 1), {});
        f.begin();
    }
    EXPECT_THROW(ResultsFolder(dir, identity("b", 1), {}), config::ConfigError);
    EXPECT_NO_THROW(ResultsFolder(dir, identity("b", 1), FolderOptions{false, true}));
}

TEST(ResultsFolder, resume_keeps_the_rows_whose_params_and_point_hash_match) {
    const auto dir = fresh_dir("resume");
    {
        ResultsFolder f(dir, identity("e", 4), {});
        f.begin();
        f.record(row(0));
        f.record(row(1));
        f.record(row(3));
    }
    FolderIdentity changed = identity("e", 4);
    changed.point_hashes[1] = "changed";                         // another configuration at point 1
    changed.point_params[3] = nlohmann::ordered_json{{"k", 9}};  // other parameters at point 3
    ResultsFolder f(dir, changed, FolderOptions{true, false});
    ASSERT_EQ(f.kept().size(), 1U);
    EXPECT_EQ(report::row_json(f.kept().at(0)).dump(), report::row_json(row(0)).dump());
}

TEST(ResultsFolder, a_shard_keeps_only_its_own_points_on_resume) {
    const auto dir = fresh_dir("resume_shard");
    {
        ResultsFolder f(dir, identity("e", 4), {});
        f.begin();
        for (size_t k = 0; k < 4; ++k) f.record(row(k));
    }
    FolderIdentity id = identity("e", 4);
    id.shard = Shard{1, 2};
    ResultsFolder f(dir, id, FolderOptions{true, false});
    ASSERT_EQ(f.kept().size(), 2U);
    EXPECT_EQ(f.kept().count(1), 1U);
    EXPECT_EQ(f.kept().count(3), 1U);
}

TEST(ResultsFolder, finish_writes_the_csv_then_marks_results_json_complete) {
    const auto dir = fresh_dir("finish");
    ResultsFolder f(dir, identity("e", 2), {});
    f.begin();
    report::ExperimentResults r;
    r.experiment = "e";
    r.rows = {row(0), row(1)};
    f.finish(r);
    const auto j = nlohmann::ordered_json::parse(test::read_file(dir / "results.json"));
    EXPECT_TRUE(j["complete"].get<bool>());
    EXPECT_EQ(j["rows"].size(), 2U);
    EXPECT_EQ(test::read_file(dir / "results.csv"), report::results_csv(r));
    EXPECT_EQ(f.close_for_interrupt(), "");  // complete: nothing to report
}

}  // namespace
}  // namespace ipisim::experiment
