// results.json (report/results_files.h): what a results folder keeps, read back.
#include <gtest/gtest.h>

#include <filesystem>

#include "report/published.h"
#include "report/results_files.h"
#include "report/shape_json.h"

using namespace ipisim;
using namespace ipisim::report;

namespace {

TEST(ResultsJson, a_results_folder_reads_back_to_the_same_results_and_published_values) {
    ExperimentResults r;
    r.experiment = "seed000_rar";
    r.description = "d";
    r.machine = "sapphire_rapids_30c";
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

    const auto file = std::filesystem::temp_directory_path() / "ipisim_results_json_test.json";
    write_text_file(file, results_json(r).dump(2));
    const ExperimentResults back = read_results_json(file);
    EXPECT_EQ(results_json(back), results_json(r));
    EXPECT_EQ(back.rows[1].fingerprint, r.rows[1].fingerprint);
    const SeedShape s = shape_from_json(back.report);
    EXPECT_EQ(s.kind, SeedShape::Kind::pivot);
    EXPECT_EQ(s.suffix, "k");
    const Published again = published_of(back);
    EXPECT_EQ(again.source, "table 1");
    ASSERT_NE(find_published(again, back.rows[1]), nullptr);
    EXPECT_EQ(find_published(again, back.rows[0]), nullptr);
    std::filesystem::remove(file);
}

}  // namespace
