// The run summary (report/summary.h): a narrow default table, --metrics, latency on request.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "config/error.h"
#include "report/summary.h"

using namespace ipisim;
using namespace ipisim::report;

namespace {

ExperimentResults results() {
    ExperimentResults r;
    r.experiment = "wide";
    r.machine = "toy2";
    r.swept = {"threads"};
    for (int t : {1, 60}) {
        ResultRow row;
        row.params["threads"] = t;
        row.params["mode"] = "threads";
        row.metrics["loops_per_sec"] = t == 1 ? 175000.0 : 1050900.0;
        for (int i = 0; i < 12; ++i) row.metrics[fmt::format("some_long_metric_name_{}", i)] = 0.001 * t * i;
        row.metrics["flush_share"] = 0.0315896;
        row.latency["flush_tlb_mm_range"] = {
            {"count", 1200}, {"p50_ns", 1500.0}, {"p90_ns", 2100.0}, {"p99_ns", 9000.0}, {"max_ns", 12345.0}};
        r.rows.push_back(row);
    }
    return r;
}

Published published() {
    Published p;
    p.source = "made up";
    PublishedRow row;
    row.params["threads"] = 60;
    row.metrics["loops_per_sec"] = 933000;
    p.rows.push_back(row);
    return p;
}

size_t widest(const std::string& s) {
    size_t w = 0, start = 0;
    while (start < s.size()) {
        const size_t end = s.find('\n', start);
        w = std::max(w, end - start);
        start = end + 1;
    }
    return w;
}

TEST(Summary, the_default_table_fits_100_columns_and_names_what_it_leaves_out) {
    const std::string out = render_summary(results(), published());
    EXPECT_LE(widest(out.substr(0, out.find("not shown"))), 100U) << out;
    EXPECT_NE(out.find("experiment: wide  machine: toy2  seed: 1\n"), std::string::npos) << out;
    EXPECT_NE(out.find("params: mode=threads\n"), std::string::npos) << out;
    // The published metric comes first, with its published value and error.
    EXPECT_NE(out.find("threads  loops_per_sec  published  error"), std::string::npos) << out;
    EXPECT_NE(out.find("1.05M       933k  +12.6%"), std::string::npos) << out;
    EXPECT_NE(out.find("not shown: "), std::string::npos) << out;
    EXPECT_NE(out.find("flush_share"), std::string::npos) << out;
    EXPECT_NE(out.find("published: made up\n"), std::string::npos) << out;
}

TEST(Summary, chosen_metrics_are_the_columns_in_the_order_given_and_shares_are_percentages) {
    SummaryOptions o;
    o.metrics = parse_metric_list("flush_share, loops_per_sec");
    const std::string out = render_summary(results(), published(), o);
    EXPECT_NE(out.find("threads  flush_share  loops_per_sec  published  error\n"), std::string::npos) << out;
    EXPECT_NE(out.find("      1        3.16%           175k"), std::string::npos) << out;
    EXPECT_EQ(out.find("some_long_metric_name_0"), std::string::npos) << out;
}

TEST(Summary, an_unknown_metric_is_an_error_listing_the_metrics) {
    SummaryOptions o;
    o.metrics = {"loops_per_second"};
    try {
        (void)render_summary(results(), published(), o);
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(
            std::string(e.what()).rfind("--metrics: loops_per_second: no such metric (there are: loops_per_sec,", 0),
            0U)
            << e.what();
    }
    EXPECT_THROW(parse_metric_list("a,,b"), config::ConfigError);
}

TEST(Summary, latency_tables_on_request_give_count_and_quantiles_in_ns) {
    SummaryOptions o;
    o.latency = true;
    o.metrics = {"loops_per_sec"};
    const std::string out = render_summary(results(), published(), o);
    EXPECT_NE(out.find("latency of flush_tlb_mm_range (ns):\n"
                       "threads  count  p50   p90   p99  max\n"
                       "-------  -----  ----  ----  ---  -----\n"
                       "      1   1.2k  1.5k  2.1k   9k  12.3k\n"),
              std::string::npos)
        << out;
    EXPECT_EQ(render_summary(results(), published()).find("latency of"), std::string::npos);
}

}  // namespace

// With --uncertainty, a nominal prediction outside its own 5-95% interval is starred and a note
// says what that means; one inside is not.
TEST(Summary, a_nominal_value_outside_its_interval_is_starred_with_a_note) {
    ExperimentResults r = results();
    r.uncertainty = {{"samples", 4}, {"interval", "5-95%"}, {"method", "latin hypercube"}};
    r.rows[0].metrics_interval["loops_per_sec"] = {170000.0, 180000.0};  // 175k inside
    r.rows[1].metrics_interval["loops_per_sec"] = {1.1e6, 1.2e6};        // 1.05M below it
    SummaryOptions o;
    o.metrics = {"loops_per_sec"};
    const std::string out = render_summary(r, published(), o);
    EXPECT_NE(out.find("175k [170k, 180k]\n"), std::string::npos) << out;
    EXPECT_NE(out.find("1.05M [1.1M, 1.2M]* "), std::string::npos) << out;
    EXPECT_NE(out.find("uncertainty: * the nominal value lies outside its interval"), std::string::npos) << out;
    r.rows[1].metrics_interval["loops_per_sec"] = {1.0e6, 1.2e6};  // now inside: no star, no note
    const std::string inside = render_summary(r, published(), o);
    EXPECT_EQ(inside.find("]*"), std::string::npos) << inside;
    EXPECT_EQ(inside.find("uncertainty: *"), std::string::npos) << inside;
}
