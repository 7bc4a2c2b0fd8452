// Numbers in tables (report/text_table.h): three significant digits with SI suffixes, shares
// as percentages, one format for every magnitude.
#include <gtest/gtest.h>

#include "report/text_table.h"

using namespace ipisim::report;

namespace {

TEST(NumberText, a_column_of_loops_per_second_reads_1_05M_beside_933k) {
    EXPECT_EQ(number_text(1050900), "1.05M");
    EXPECT_EQ(number_text(933000), "933k");
    EXPECT_EQ(number_text(1726210), "1.73M");
    EXPECT_EQ(number_text(175000), "175k");
    EXPECT_EQ(number_text(2e9), "2G");
    EXPECT_EQ(number_text(3.5e12), "3.5T");
}

TEST(NumberText, small_numbers_keep_three_significant_digits) {
    EXPECT_EQ(number_text(0), "0");
    EXPECT_EQ(number_text(5), "5");
    EXPECT_EQ(number_text(5.234), "5.23");
    EXPECT_EQ(number_text(523.4), "523");
    EXPECT_EQ(number_text(0.0315896), "0.0316");
    EXPECT_EQ(number_text(-12.34), "-12.3");
    EXPECT_EQ(number_text(1.5e-5), "1.5e-05");
}

TEST(NumberText, a_value_that_rounds_up_to_a_thousand_takes_the_next_suffix) {
    EXPECT_EQ(number_text(999.7), "1k");
    EXPECT_EQ(number_text(999499), "999k");
    EXPECT_EQ(number_text(999500), "1M");
}

TEST(NumberText, shares_are_percentages_and_only_metrics_named_share) {
    EXPECT_EQ(percent_text(0.0315896), "3.16%");
    EXPECT_EQ(percent_text(1.0), "100%");
    EXPECT_EQ(metric_text("tlb_invalidation_share", 0.5), "50%");
    EXPECT_EQ(metric_text("loops_per_sec", 1050900.0), "1.05M");
    EXPECT_EQ(metric_text("dispatch", "ipi"), "ipi");
    EXPECT_EQ(metric_text("flag", true), "true");
    EXPECT_FALSE(is_share("shared_lines"));
}

TEST(TextTable, suffixed_numbers_and_percentages_align_right) {
    TextTable t({"name", "value"});
    t.add_row({"a", "1.05M"});
    t.add_row({"b", "933k"});
    t.add_row({"c", "3.2%"});
    EXPECT_EQ(t.render(), "name  value\n----  -----\na     1.05M\nb      933k\nc      3.2%\n");
}

TEST(CellText, parameters_and_seed_lines_keep_exact_numbers) {
    EXPECT_EQ(cell_text(933000), "933000");
    EXPECT_EQ(cell_text(1.5), "1.5");
}

}  // namespace
