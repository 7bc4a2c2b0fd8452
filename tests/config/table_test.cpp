// A config::Table reads strictly: every mistake is a ConfigError naming FILE:LINE and the key.
#include <gtest/gtest.h>

#include <filesystem>

#include "config/table.h"
#include "support/scratch_path.h"

namespace ipisim::config {
namespace {

using namespace sim::literals;

// The message a read throws, or "" when it does not throw.
template <class F>
std::string error_of(F&& read) {
    try {
        read();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

const char* kMachine = R"(name = "m"
cores = 4
clock = "2.1 GHz"

[costs]
ipi = "500 ns"
spin = 3.5
list = [1, 2, "x"]
lats = ["1 ns", "2 us"]
)";

TEST(Table, values_of_the_right_type_and_unit_are_read) {
    Document doc = Document::parse(kMachine, "m.toml");
    Table root = doc.root();
    EXPECT_EQ(root.get<std::string>("name"), "m");
    EXPECT_EQ(root.get<int>("cores"), 4);
    EXPECT_EQ(root.frequency("clock").khz(), 2'100'000U);
    Table costs = root.table("costs");
    EXPECT_EQ(costs.duration("ipi"), 500_ns);
    EXPECT_DOUBLE_EQ(costs.get<double>("spin"), 3.5);
    EXPECT_EQ(costs.duration_array("lats"), (std::vector<sim::Picos>{1_ns, 2_us}));
    EXPECT_EQ(costs.duration_or("absent", 7_ns), 7_ns);
    EXPECT_FALSE(costs.get_optional<int>("absent").has_value());
}

// Regression (reliability review: published metric = nan, report.scale = nan): a NaN passes every
// range check written as `x < min || x > max`, so no number read from a file may be non-finite.
TEST(Table, a_nan_or_infinite_number_is_an_error_at_its_key) {
    Document doc = Document::parse("a = nan\nb = -inf\nc = +inf\nd = 1.5\n", "n.toml");
    Table root = doc.root();
    EXPECT_EQ(error_of([&] { root.get<double>("a"); }), "n.toml:1: a: must be a finite number, got nan");
    EXPECT_EQ(error_of([&] { root.get<double>("b"); }), "n.toml:2: b: must be a finite number, got -inf");
    EXPECT_EQ(error_of([&] { root.get_or<double>("c", 0.0); }), "n.toml:3: c: must be a finite number, got inf");
    EXPECT_DOUBLE_EQ(root.get<double>("d"), 1.5);
}

// Regression (reliability review E68): a symlink loop was reported as "no such file".
TEST(Table, a_character_the_toml_parser_mishandles_is_a_located_error_before_it_parses) {
    // toml++ 3.3 reaches an unreachable branch (UB) on non-ASCII code points where whitespace
    // may stand: the fuzz corpus found it. Non-ASCII text is TOML only in strings and comments.
    const char* bad[] = {"a = 1\nb = 2 \xEF\xB7\xBA\n", "a = 1\nb = 2 \xC3\xA9\n",
                         "a = 1\nb = \"\"\"x\\\n \xC3\xA9\"\"\"\n"};
    const int lines[] = {2, 2, 3};
    for (size_t k = 0; k < std::size(bad); ++k) {
        try {
            (void)Document::parse(bad[k], "u.toml");
            ADD_FAILURE() << "no error for " << bad[k];
        } catch (const ConfigError& e) {
            EXPECT_EQ(e.file(), "u.toml");
            EXPECT_EQ(e.line(), lines[k]) << e.what();
            EXPECT_NE(e.problem().find("non-ASCII"), std::string::npos) << e.what();
        }
    }
    const Document ok = Document::parse(
        "\xEF\xBB\xBF# caf\xC3\xA9\na = \"caf\xC3\xA9 \\\" \xEF\xB7\xBA\"\nb = 'caf\xC3\xA9'\nc = "
        "\"\"\"\ncaf\xC3\xA9\"\"\"\n"
        "d = 1 # \xC3\xA9\n",
        "ok.toml");
    EXPECT_EQ(ok.root().get<std::string>("b"), "caf\xC3\xA9");
}

TEST(Table, a_file_that_cannot_be_read_says_why) {
    const auto dir = ::ipisim::test::scratch_path("ipisim_table_test_files");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "folder.toml");
    std::filesystem::create_symlink("loop.toml", dir / "loop.toml");
    std::filesystem::create_symlink("missing.toml", dir / "dangling.toml");
    const std::string d = dir.string();
    EXPECT_EQ(error_of([&] { Document::load(d + "/loop.toml"); }),
              d + "/loop.toml: (file): cannot be read: Too many levels of symbolic links");
    EXPECT_EQ(error_of([&] { Document::load(d + "/dangling.toml"); }),
              d + "/dangling.toml: (file): a symbolic link to a missing file");
    EXPECT_EQ(error_of([&] { Document::load(d + "/folder.toml"); }), d + "/folder.toml: (file): not a regular file");
    EXPECT_EQ(error_of([&] { Document::load(d + "/absent.toml"); }), d + "/absent.toml: (file): no such file");
    std::filesystem::remove_all(dir);
}

TEST(Table, an_unknown_key_names_its_file_and_line) {
    Document doc = Document::parse(kMachine, "m.toml");
    Table root = doc.root();
    root.get<std::string>("name");
    root.table("costs");
    EXPECT_EQ(error_of([&] { root.finish(); }), "m.toml:2: cores: unknown key");
}

TEST(Table, unknown_keys_are_reported_in_file_order) {
    Document doc = Document::parse("z = 1\na = 2\n", "f.toml");
    EXPECT_EQ(error_of([&] { doc.root().finish(); }), "f.toml:1: z: unknown key");
}

TEST(Table, a_value_of_the_wrong_type_names_both_types) {
    Document doc = Document::parse(kMachine, "m.toml");
    Table root = doc.root();
    EXPECT_EQ(error_of([&] { root.get<int>("name"); }), "m.toml:1: name: expected an integer, got a string");
    EXPECT_EQ(error_of([&] { root.get<bool>("cores"); }), "m.toml:2: cores: expected a boolean, got an integer");
    EXPECT_EQ(error_of([&] { root.table("name"); }), "m.toml:1: name: expected a table, got a string");
}

TEST(Table, a_missing_required_key_names_the_table) {
    Document doc = Document::parse(kMachine, "m.toml");
    Table costs = doc.root().table("costs");
    EXPECT_EQ(error_of([&] { costs.duration("c1_exit"); }), "m.toml:5: costs.c1_exit: required key is missing");
}

TEST(Table, a_duration_without_its_unit_is_an_error) {
    Document doc = Document::parse("[costs]\nipi = 500\nipi2 = \"500\"\n", "m.toml");
    Table costs = doc.root().table("costs");
    EXPECT_EQ(error_of([&] { costs.duration("ipi"); }),
              "m.toml:2: costs.ipi: a duration must be a string with a unit such as \"5 ns\", got "
              "an integer");
    EXPECT_EQ(error_of([&] { costs.duration("ipi2"); }),
              "m.toml:3: costs.ipi2: a duration needs a unit (ps, ns, us, ms or s), got \"500\"");
}

TEST(Table, a_bad_array_element_names_its_index) {
    Document doc = Document::parse(kMachine, "m.toml");
    Table costs = doc.root().table("costs");
    EXPECT_EQ(error_of([&] { costs.array<int>("list"); }),
              "m.toml:8: costs.list[2]: expected an integer, got a string");
}

TEST(Table, an_integer_out_of_range_is_an_error) {
    Document doc = Document::parse("n = -1\n", "f.toml");
    EXPECT_EQ(error_of([&] { doc.root().get<uint32_t>("n"); }), "f.toml:1: n: -1 is out of range");
}

TEST(Table, keys_come_in_file_order) {
    Document doc = Document::parse("[sweep]\nzeta = [1]\nalpha = [2]\nmid = [3]\n", "f.toml");
    EXPECT_EQ(doc.root().table("sweep").keys(), (std::vector<std::string>{"zeta", "alpha", "mid"}));
}

TEST(Table, a_syntax_error_names_its_line) {
    EXPECT_EQ(error_of([] { Document::parse("a = 1\nb = = 2\n", "f.toml"); }),
              "f.toml:2: (syntax): Error while parsing value: could not determine value type");
}

TEST(Table, a_missing_file_is_named) {
    EXPECT_EQ(error_of([] { Document::load("/no/such/file.toml"); }), "/no/such/file.toml: (file): no such file");
}

}  // namespace
}  // namespace ipisim::config

namespace ipisim::config {
namespace {

TEST(Table, a_substituted_key_reads_its_value_and_names_it_at_its_own_line) {
    Document doc = Document::parse("[params]\nthreads = 1\n[sweep]\nthreads = [2, \"x\"]\n", "s.toml");
    const toml::array& values = *doc.tree()["sweep"]["threads"].as_array();
    Table good(doc.tree()["params"].as_table(), "s.toml", "params",
               {Substitute{"threads", values.get(0), "sweep.threads[0]"}});
    EXPECT_EQ(good.get<int64_t>("threads"), 2);
    good.finish();
    Table bad(doc.tree()["params"].as_table(), "s.toml", "params",
              {Substitute{"threads", values.get(1), "sweep.threads[1]"}});
    EXPECT_EQ(error_of([&] { bad.get<int64_t>("threads"); }),
              "s.toml:4: sweep.threads[1]: expected an integer, got a string");
}

TEST(Table, a_substituted_key_absent_from_the_table_is_listed_and_must_be_read) {
    Document doc = Document::parse("[params]\na = 1\n[sweep]\nb = [5]\n", "s.toml");
    Table t(doc.tree()["params"].as_table(), "s.toml", "params",
            {Substitute{"b", doc.tree()["sweep"]["b"].as_array()->get(0), "sweep.b[0]"}});
    EXPECT_EQ(t.keys(), (std::vector<std::string>{"a", "b"}));
    t.get<int64_t>("a");
    EXPECT_EQ(error_of([&] { t.finish(); }), "s.toml:4: sweep.b[0]: unknown key");
}

}  // namespace
}  // namespace ipisim::config
