// config::suggestions (config/suggest.h): "did you mean" by edit distance.
#include "config/suggest.h"

#include <gtest/gtest.h>

#include "config/error.h"
#include "config/table.h"

using namespace ipisim::config;

namespace {

TEST(Suggest, edit_distance_counts_insertions_deletions_substitutions_and_swaps) {
    EXPECT_EQ(edit_distance("list", "list"), 0U);
    EXPECT_EQ(edit_distance("lst", "list"), 1U);
    EXPECT_EQ(edit_distance("lsit", "list"), 1U);  // a swap of neighbours is one edit
    EXPECT_EQ(edit_distance("rnu", "run"), 1U);
    EXPECT_EQ(edit_distance("LIST", "list"), 0U);  // case is ignored
    EXPECT_EQ(edit_distance("", "run"), 3U);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3U);
}

TEST(Suggest, a_misspelt_subcommand_gets_the_closest_known_one) {
    const std::vector<std::string> commands = {"list", "run", "reproduce", "plot", "compare", "report", "machine"};
    EXPECT_EQ(did_you_mean("lst", commands), " (did you mean list?)");
    EXPECT_EQ(did_you_mean("reprodcue", commands), " (did you mean reproduce?)");
    EXPECT_EQ(did_you_mean("rport", commands), " (did you mean report?)");
    EXPECT_EQ(did_you_mean("frobnicate", commands), "");
    // Rewriting as many letters as the name has is not a typo: a one-letter name gets nothing.
    EXPECT_EQ(did_you_mean("b", {"a", "ab"}), "");
    EXPECT_EQ(did_you_mean("cpus", {"cpu", "clock"}), " (did you mean cpu?)");
}

// An unknown key in a strictly read table suggests the keys its reader asked for (present or
// not): [kernel] skew_tik -> skew_tick.
TEST(Suggest, an_unknown_key_names_the_closest_key_the_reader_asked_for) {
    Document doc = Document::parse("threads = 1\nskew_tik = true\n", "k.toml");
    Table t = doc.root();
    t.get<int64_t>("threads");
    EXPECT_FALSE(t.get_optional<bool>("skew_tick").has_value());
    try {
        t.finish();
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_EQ(std::string(e.what()), "k.toml:2: skew_tik: unknown key (did you mean skew_tick?)");
    }
}

TEST(Suggest, a_prefix_of_a_known_name_suggests_it_and_at_most_three_are_given) {
    const std::vector<std::string> exps = {"seed000_rar", "seed001_resctrl_epyc", "seed001_resctrl_xeon",
                                           "seed002_gic_barrier"};
    EXPECT_EQ(suggestion("seed000", exps), "seed000_rar");
    EXPECT_EQ(did_you_mean("seed001_resctrl", exps), " (did you mean seed001_resctrl_epyc or seed001_resctrl_xeon?)");
    EXPECT_EQ(suggestions("seed00", exps).size(), 3U);
    EXPECT_EQ(suggestion("seed000_rar", exps), "");  // the name itself is not a suggestion
}

}  // namespace
