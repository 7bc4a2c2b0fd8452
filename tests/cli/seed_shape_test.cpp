// Experiments print in their seed's own table shape.
#include <gtest/gtest.h>

#include "config/table.h"
#include "report/seed_shape.h"

using namespace ipisim;

namespace {
report::ResultRow row(int threads, const char* flush, double loops) {
    report::ResultRow r;
    r.params["threads"] = threads;
    r.params["flush"] = flush;
    r.metrics["loops_per_sec"] = loops;
    return r;
}
}  // namespace

TEST(SeedShape, a_pivot_puts_one_param_down_and_one_across_with_published_values_and_errors) {
    config::Document doc = config::Document::parse(R"(
[params]
threads = 1
flush = "ipi"
[report]
kind = "pivot"
title = "loops/sec"
rows = "threads"
columns = "flush"
value = "loops_per_sec"
scale = 1000.0
suffix = "k"
)",
                                                   "t.toml");
    config::Table root = doc.root();
    report::SeedShape shape = report::read_seed_shape(root.table("report"), {"threads", "flush"}, {"loops_per_sec"});
    report::ExperimentResults res;
    res.rows = {row(1, "ipi", 174000), row(1, "rar", 170000), row(5, "ipi", 350000), row(5, "rar", 300000)};
    report::Published pub;
    report::PublishedRow p;
    p.params["threads"] = 1;
    p.params["flush"] = "ipi";
    p.metrics["loops_per_sec"] = 175000;
    pub.rows.push_back(p);
    const std::string out = report::render_seed_shape(shape, res, pub);
    EXPECT_NE(out.find("loops/sec"), std::string::npos);
    EXPECT_NE(out.find("174k (175k, -1%)"), std::string::npos) << out;
    EXPECT_NE(out.find("350k"), std::string::npos) << out;
    EXPECT_NE(out.find("rar"), std::string::npos) << out;
}

TEST(SeedShape, a_lines_template_expands_params_and_metrics) {
    config::Document doc = config::Document::parse(R"(
[params]
rounds = 1000
[report]
kind = "lines"
line = "delta of {rounds}times:{total_ns}"
)",
                                                   "t.toml");
    config::Table root = doc.root();
    report::SeedShape shape = report::read_seed_shape(root.table("report"), {"rounds"}, {"total_ns"});
    report::ExperimentResults res;
    report::ResultRow r;
    r.params["rounds"] = 1000;
    r.metrics["total_ns"] = 123;
    res.rows.push_back(r);
    EXPECT_NE(report::render_seed_shape(shape, res, {}).find("delta of 1000times:123"), std::string::npos);
}

TEST(SeedShape, an_unknown_kind_or_pivot_key_names_its_line) {
    config::Document doc = config::Document::parse("[params]\nthreads = 1\n[report]\nkind = \"pie\"\n", "t.toml");
    config::Table root = doc.root();
    try {
        report::read_seed_shape(root.table("report"), {"threads"}, {"x"});
        FAIL() << "accepted an unknown kind";
    } catch (const config::ConfigError& e) {
        EXPECT_STREQ(e.what(), "t.toml:4: report.kind: must be one of \"pivot\", \"lines\", got \"pie\"");
    }
    config::Document doc2 = config::Document::parse(
        "[params]\nthreads = 1\n[report]\nkind = \"pivot\"\nrows = \"cpus\"\ncolumns = \"threads\"\nvalue = \"x\"\n",
        "u.toml");
    config::Table root2 = doc2.root();
    try {
        report::read_seed_shape(root2.table("report"), {"threads"}, {"x"});
        FAIL() << "accepted a pivot row key that is not a param";
    } catch (const config::ConfigError& e) {
        EXPECT_STREQ(e.what(), "u.toml:5: report.rows: \"cpus\" is not a parameter of the rows (threads)");
    }
}

TEST(SeedShape, a_pivot_value_that_names_no_metric_is_an_error) {
    config::Document doc = config::Document::parse(
        "[report]\nkind = \"pivot\"\nrows = \"a\"\ncolumns = \"b\"\nvalue = \"lops\"\n", "v.toml");
    try {
        report::read_seed_shape(doc.root().table("report"), {"a", "b"}, {"loops"});
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_STREQ(e.what(), "v.toml:5: report.value: \"lops\" is not a metric of the workload (loops)");
    }
}

TEST(SeedShape, a_line_placeholder_that_names_nothing_is_an_error) {
    config::Document doc = config::Document::parse("[report]\nkind = \"lines\"\nline = \"{a} {nope}\"\n", "w.toml");
    try {
        report::read_seed_shape(doc.root().table("report"), {"a"}, {"m"});
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_STREQ(e.what(), "w.toml:3: report.line: placeholder {nope} names no row parameter (a) or metric (m)");
    }
}

TEST(SeedShape, pivot_keys_are_an_error_in_a_lines_report) {
    config::Document doc =
        config::Document::parse("[report]\nkind = \"lines\"\nline = \"x\"\nrows = \"a\"\n", "x.toml");
    EXPECT_THROW(report::read_seed_shape(doc.root().table("report"), {"a"}, {"m"}), config::ConfigError);
}
