// attach_published with a PublishedScope (report/published.h): a point is compared with a
// published row only when the run's setup is the published one.
#include <gtest/gtest.h>

#include "report/published.h"

using namespace ipisim;
using namespace ipisim::report;

namespace {

ExperimentResults two_points(const std::string& mode) {
    ExperimentResults r;
    r.machine = "sapphire_rapids_30c";
    for (int t : {1, 60}) {
        ResultRow row;
        row.params["threads"] = t;
        row.params["mode"] = mode;
        row.metrics["loops_per_sec"] = 1000.0 * t;
        r.rows.push_back(row);
    }
    return r;
}

Published published_at(int threads) {
    Published p;
    p.source = "table 1";
    PublishedRow row;
    row.params["threads"] = threads;
    row.metrics["loops_per_sec"] = 1040000;
    p.rows.push_back(row);
    return p;
}

PublishedScope threads_mode_file() {
    PublishedScope s;
    s.values["threads"] = 1;
    s.values["mode"] = "threads";
    s.swept = {"threads"};
    s.machine = "sapphire_rapids_30c";
    return s;
}

TEST(PublishedScope, a_run_with_the_files_setup_is_compared_across_its_swept_values) {
    ExperimentResults r = two_points("threads");
    attach_published(r, published_at(60), threads_mode_file());
    EXPECT_EQ(r.rows[1].published["loops_per_sec"], 1040000);
    EXPECT_EQ(r.published_note, "");
}

TEST(PublishedScope, a_processes_mode_run_is_not_compared_with_threads_mode_numbers) {
    ExperimentResults r = two_points("processes");
    attach_published(r, published_at(60), threads_mode_file());
    EXPECT_TRUE(r.rows[1].published.empty());
    EXPECT_EQ(r.published_note,
              "published values are not compared where the run differs from their setup: "
              "mode=processes (published: threads)");
}

TEST(PublishedScope, another_machine_or_a_machine_override_is_not_compared) {
    ExperimentResults other = two_points("threads");
    other.machine = "milan_72";
    attach_published(other, published_at(60), threads_mode_file());
    EXPECT_TRUE(other.rows[1].published.empty());
    EXPECT_EQ(other.published_note,
              "published values are not compared where the run differs from their setup: "
              "machine milan_72 (published: sapphire_rapids_30c)");

    ExperimentResults overridden = two_points("threads");
    PublishedScope scope = threads_mode_file();
    scope.machine_overrides = {"topology.packages=2"};
    attach_published(overridden, published_at(60), scope);
    EXPECT_TRUE(overridden.rows[1].published.empty());
    EXPECT_NE(overridden.published_note.find("--set machine.topology.packages=2"), std::string::npos);
}

TEST(PublishedScope, a_published_setup_value_the_run_lacks_keeps_its_rows_from_matching) {
    ExperimentResults r = two_points("processes");
    Published p = published_at(60);
    p.setup["mode"] = "threads";
    p.rows[0].params["mode"] = "threads";  // the experiment loader adds the setup to every row
    attach_published(r, p, threads_mode_file());
    EXPECT_TRUE(r.rows[1].published.empty());
    EXPECT_EQ(r.published_note,
              "published values are not compared where the run differs from their setup: "
              "mode=processes (published: threads)");
}

}  // namespace
