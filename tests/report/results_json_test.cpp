// results.json (report/results_files.h): what a results folder keeps, read back.
#include <gtest/gtest.h>

#include <filesystem>

#include "config/error.h"
#include "report/published.h"
#include "report/results_files.h"
#include "report/shape_json.h"
#include "support/scratch_path.h"

using namespace ipisim;
using namespace ipisim::report;

namespace {

TEST(ResultsJson, a_results_folder_reads_back_to_the_same_results_and_published_values) {
    ExperimentResults r;
    r.experiment = "seed000_rar";
    r.description = "d";
    r.machine = "sapphire_rapids_30c";
    r.machine_description = "Sapphire Rapids 30c/60t";
    r.machine_hash = "0123456789abcdef";
    r.kernel = "6.18";
    r.ipisim_version = "0.1.0";
    r.git_commit = "abc123def456-dirty";
    r.published_note = "why not";
    r.seed = 3;
    r.swept = {"threads"};
    SeedShape shape;
    shape.kind = SeedShape::Kind::pivot;
    shape.rows = "threads";
    shape.columns = "flush";
    shape.value = "loops_per_sec";
    shape.scale = 1000;
    shape.suffix = "k";
    r.report = shape_json(shape);
    for (int t : {1, 60}) {
        ResultRow row;
        row.point = r.rows.size();
        row.params["threads"] = t;
        row.params["flush"] = "ipi";
        row.metrics["loops_per_sec"] = 1000.0 * t;
        row.latency["ipi_delivery"] = {{"count", 1}, {"p50_ns", 500.0}};
        row.profile["csd_lock_wait (spin)"] = 0.5;
        row.fingerprint = 0x1234abcd0000ULL + static_cast<uint64_t>(t);
        r.rows.push_back(row);
    }
    Published pub;
    pub.source = "table 1";
    PublishedRow p;
    p.params["threads"] = 60;
    p.metrics["loops_per_sec"] = 1040000;
    pub.rows.push_back(p);
    attach_published(r, pub);
    EXPECT_TRUE(r.rows[0].published.empty());
    EXPECT_EQ(r.rows[1].published["loops_per_sec"], 1040000);

    const auto file = ::ipisim::test::scratch_path("ipisim_results_json_test.json");
    write_text_file(file, results_json(r).dump(2));
    const ExperimentResults back = read_results_json(file);
    EXPECT_EQ(results_json(back), results_json(r));
    EXPECT_EQ(back.rows[1].fingerprint, r.rows[1].fingerprint);
    EXPECT_EQ(back.git_commit, "abc123def456-dirty");
    EXPECT_EQ(back.machine_hash, "0123456789abcdef");
    EXPECT_EQ(back.kernel, "6.18");
    const SeedShape s = shape_from_json(back.report);
    EXPECT_EQ(s.kind, SeedShape::Kind::pivot);
    EXPECT_EQ(s.suffix, "k");
    const Published again = published_of(back);
    EXPECT_EQ(again.source, "table 1");
    ASSERT_NE(find_published(again, back.rows[1]), nullptr);
    EXPECT_EQ(find_published(again, back.rows[0]), nullptr);
    std::filesystem::remove(file);
}

// Files written before rows carried their point, events and simulated time (and results
// folders' commit records, which the reader ignores) still read: a row is the point of its index.
TEST(ResultsJson, an_older_results_json_without_points_or_events_reads_with_the_row_index_as_point) {
    const auto file = ::ipisim::test::scratch_path("ipisim_results_json_older.json");
    write_text_file(file, R"({"experiment": "e", "seed": 1, "complete": true, "config_hash": "0123456789abcdef",
        "rows": [{"params": {"n": 1}, "metrics": {"x": 2.5}, "fingerprint": "00000000000000aa"},
                 {"params": {"n": 2}, "metrics": {"x": null}}]})");
    const ExperimentResults back = read_results_json(file);
    ASSERT_EQ(back.rows.size(), 2U);
    EXPECT_EQ(back.rows[0].point, 0U);
    EXPECT_EQ(back.rows[1].point, 1U);
    EXPECT_EQ(back.rows[0].fingerprint, 0xaaU);
    EXPECT_EQ(back.rows[1].fingerprint, 0U);
    EXPECT_EQ(back.rows[0].events, 0U);
    EXPECT_TRUE(back.rows[1].metrics["x"].is_null());
    std::filesystem::remove(file);
}

TEST(ResultsJson, a_row_member_of_the_wrong_type_names_the_file_and_the_member) {
    const auto file = ::ipisim::test::scratch_path("ipisim_results_json_bad.json");
    write_text_file(file, R"({"experiment": "e", "rows": [{"params": {}, "metrics": {}}, {"params": {},
        "metrics": {}, "events": "many"}]})");
    try {
        (void)read_results_json(file);
        FAIL() << "no error";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.file(), file.string());
        EXPECT_EQ(e.key(), "rows[1].events");
        EXPECT_EQ(e.problem(), "expected a count, got string");
    }
    std::filesystem::remove(file);
}

}  // namespace
