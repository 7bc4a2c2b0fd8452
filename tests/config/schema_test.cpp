#include "config/schema.h"

#include <gtest/gtest.h>

#include "config/units.h"
#include "config/writer.h"

namespace ipisim::config {
namespace {

using namespace sim::literals;

enum class Mode { threads, processes };

struct Params {
    int64_t threads = 0;
    Mode mode = Mode::threads;
    sim::Picos warmup;
    double fraction = 0;
    uint32_t small = 0;
    std::optional<sim::Picos> limit;
    bool smt = false;
    uint32_t smt_percent = 0;
};

const Schema<Params>& schema() {
    static const auto s =
        Schema<Params>("test", "a test schema")
            .param("threads", &Params::threads, "tasks")
            .at_least(1)
            .choice("mode", &Params::mode, {{"threads", Mode::threads}, {"processes", Mode::processes}}, "sharing")
            .def(Mode::threads)
            .param("warmup", &Params::warmup, "before the window")
            .def(2_ms)
            .param("fraction", &Params::fraction, "a share")
            .def(0.5)
            .at_least(0)
            .at_most(1)
            .param("small", &Params::small, "an unsigned count")
            .def(uint32_t{3})
            .param("limit", &Params::limit, "optional")
            .param("smt", &Params::smt, "siblings")
            .def(false)
            .sets("smt", [](const Params& p) { return p.smt; })
            .param("smt_percent", &Params::smt_percent, "sibling speed")
            .when("smt");
    return s;
}

Params read(const std::string& text) {
    Document doc = Document::parse(text, "t.toml");
    return schema().read(doc.root());
}

std::string error_of(const std::string& text) {
    try {
        read(text);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Schema, a_required_value_and_defaults_are_read) {
    const Params p = read("threads = 4\n");
    EXPECT_EQ(p.threads, 4);
    EXPECT_EQ(p.mode, Mode::threads);
    EXPECT_EQ(p.warmup, 2_ms);
    EXPECT_DOUBLE_EQ(p.fraction, 0.5);
    EXPECT_EQ(p.small, 3u);
    EXPECT_FALSE(p.limit.has_value());
}

TEST(Schema, a_choice_maps_its_name_to_the_enum) {
    EXPECT_EQ(read("threads = 1\nmode = \"processes\"\n").mode, Mode::processes);
    EXPECT_EQ(error_of("threads = 1\nmode = \"process\"\n"),
              "t.toml:2: mode: must be one of \"threads\", \"processes\", got \"process\" (did you mean processes?)");
}

TEST(Schema, a_missing_required_key_and_an_unknown_key_are_located_errors) {
    EXPECT_EQ(error_of("mode = \"threads\"\n"), "t.toml:1: threads: required key is missing");
    EXPECT_EQ(error_of("threads = 1\nthread = 2\n"), "t.toml:2: thread: unknown key (did you mean threads?)");
}

TEST(Schema, nan_and_infinity_are_not_numbers_in_range) {
    EXPECT_EQ(error_of("threads = 1\nfraction = nan\n"), "t.toml:2: fraction: must be a finite number, got nan");
    EXPECT_EQ(error_of("threads = 1\nfraction = inf\n"), "t.toml:2: fraction: must be a finite number, got inf");
    EXPECT_EQ(error_of("threads = 1\nfraction = 1.5\n"), "t.toml:2: fraction: must be at most 1");
}

TEST(Schema, integers_are_checked_against_their_bounds_and_their_type) {
    EXPECT_EQ(error_of("threads = 0\n"), "t.toml:1: threads: must be at least 1");
    EXPECT_EQ(error_of("threads = 1\nsmall = -1\n"), "t.toml:2: small: -1 is out of range");
    EXPECT_EQ(error_of("threads = 1\nsmall = 4294967296\n"), "t.toml:2: small: 4294967296 is out of range");
}

TEST(Schema, a_huge_duration_is_an_error_not_a_clamp) {
    EXPECT_EQ(error_of("threads = 1\nwarmup = \"1e7 s\"\n"),
              "t.toml:2: warmup: duration too large: \"1e7 s\" (at most 53 days)");
    EXPECT_EQ(read("threads = 1\nlimit = \"3 us\"\n").limit, 3_us);
}

TEST(Schema, a_conditional_value_is_required_where_it_applies_and_an_error_elsewhere) {
    EXPECT_EQ(read("threads = 1\nsmt = true\nsmt_percent = 60\n").smt_percent, 60u);
    EXPECT_EQ(error_of("threads = 1\nsmt = true\n"), "t.toml:1: smt_percent: required key is missing");
    EXPECT_EQ(error_of("threads = 1\nsmt_percent = 60\n"), "t.toml:2: smt_percent: only meaningful when smt");
}

TEST(Schema, the_listing_names_types_defaults_and_conditions) {
    const SchemaInfo info = schema().info();
    ASSERT_EQ(info.params.size(), 8u);
    EXPECT_EQ(info.params[0].key, "threads");
    EXPECT_TRUE(info.params[0].required);
    EXPECT_EQ(info.params[1].default_text, "\"threads\"");
    EXPECT_EQ(info.params[1].choices, (std::vector<std::string>{"threads", "processes"}));
    EXPECT_EQ(info.params[2].default_text, "\"2 ms\"");
    EXPECT_EQ(info.params[7].when, "smt");
}

TEST(Schema, write_puts_every_value_defaults_included) {
    const Params p = read("threads = 7\n");
    toml::table out;
    schema().write(p, out);
    const std::string text = to_toml_text(out);
    EXPECT_NE(text.find("threads = 7"), std::string::npos) << text;
    EXPECT_NE(text.find("mode = \"threads\""), std::string::npos) << text;
    EXPECT_NE(text.find("warmup = \"2 ms\""), std::string::npos) << text;
    EXPECT_EQ(text.find("smt_percent"), std::string::npos) << text;  // does not apply
    EXPECT_EQ(text.find("limit"), std::string::npos) << text;        // absent optional
    // and it reads back to the same values
    const Params again = read(text);
    EXPECT_EQ(again.threads, 7);
    EXPECT_EQ(again.warmup, 2_ms);
}

TEST(Schema, duration_text_is_exact) {
    EXPECT_EQ(duration_text(1234567_ps), "1234.567 ns");
    EXPECT_EQ(duration_text(1104600_ps), "1104.6 ns");
    EXPECT_EQ(duration_text(1050_ps), "1.05 ns");
    EXPECT_EQ(duration_text(750_ps), "750 ps");
    for (const uint64_t ps : {1234567ULL, 1104600ULL, 1050ULL, 999999999999ULL, 750ULL}) {
        EXPECT_EQ(parse_duration(duration_text(sim::Picos(ps)), nullptr), sim::Picos(ps)) << ps;
    }
    EXPECT_EQ(duration_text(1500_ns), "1500 ns");
    EXPECT_EQ(duration_text(2_ms), "2 ms");
    EXPECT_EQ(duration_text(sim::Picos(0)), "0 ns");
}

struct Costs {
    sim::Picos same_l3;
    double ratio = 0;
};

const Schema<Costs>& cost_schema() {
    static const auto s = Schema<Costs>("costs")
                              .param("same_l3", &Costs::same_l3, "transfer")
                              .cost()
                              .param("ratio", &Costs::ratio, "a ratio")
                              .cost()
                              .def(1.0);
    return s;
}

std::string cost_error(const std::string& text) {
    try {
        Document doc = Document::parse(text, "m.toml");
        CostRecord rec;
        cost_schema().read(doc.root(), {}, &rec);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Schema, a_cost_carries_its_mark_source_and_range) {
    Document doc = Document::parse(
        "same_l3 = { value = \"60 ns\", mark = \"A\", range = [\"40 ns\", \"75 ns\"], source = \"proxy\" }\n"
        "ratio = { value = 4.5, mark = \"P\", source = \"Newman 2023\" }\n",
        "m.toml");
    CostRecord rec;
    const Costs c = cost_schema().read(doc.root(), {}, &rec);
    EXPECT_EQ(c.same_l3, 60_ns);
    EXPECT_DOUBLE_EQ(c.ratio, 4.5);
    ASSERT_EQ(rec.size(), 2u);
    EXPECT_EQ(rec[0].key, "same_l3");
    EXPECT_EQ(rec[0].provenance.mark, Mark::A);
    EXPECT_DOUBLE_EQ(rec[0].provenance.range->lo, 40000);
    EXPECT_DOUBLE_EQ(rec[0].provenance.range->hi, 75000);
    EXPECT_EQ(rec[0].provenance.source, "proxy");
    EXPECT_EQ(rec[0].line, 1);
    EXPECT_EQ(rec[1].provenance.mark, Mark::P);
    EXPECT_FALSE(rec[1].provenance.range.has_value());

    // written back with its provenance, and read again identically
    toml::table out;
    cost_schema().write(c, out, {}, &rec);
    const std::string text = to_toml_text(out);
    Document again = Document::parse(text, "again.toml");
    CostRecord rec2;
    cost_schema().read(again.root(), {}, &rec2);
    ASSERT_EQ(rec2.size(), 2u);
    EXPECT_EQ(rec2[0].provenance.mark, Mark::A);
    EXPECT_DOUBLE_EQ(rec2[0].provenance.range->hi, 75000);
}

TEST(Schema, a_fitted_value_may_carry_its_fit_interval_inside_its_range_and_around_its_value) {
    const std::string head = "same_l3 = { value = \"60 ns\", mark = \"F\", range = [\"40 ns\", \"75 ns\"], ";
    const std::string tail = "source = \"x\", target = \"t\" }\n";
    Document d = Document::parse(head + "fit = [\"58 ns\", \"63 ns\"], " + tail, "m.toml");
    CostRecord rec;
    const Costs c = cost_schema().read(d.root(), {}, &rec);
    ASSERT_TRUE(rec[0].provenance.fit.has_value());
    EXPECT_DOUBLE_EQ(rec[0].provenance.fit->lo, 58000);
    EXPECT_DOUBLE_EQ(rec[0].provenance.fit->hi, 63000);
    // written back and read again identically
    toml::table out;
    cost_schema().write(c, out, {}, &rec);
    Document again = Document::parse(to_toml_text(out), "again.toml");
    CostRecord rec2;
    cost_schema().read(again.root(), {}, &rec2);
    ASSERT_TRUE(rec2[0].provenance.fit.has_value());
    EXPECT_DOUBLE_EQ(rec2[0].provenance.fit->hi, 63000);

    EXPECT_EQ(cost_error(head + "fit = [\"30 ns\", \"63 ns\"], " + tail),
              "m.toml:1: same_l3.fit: the fit interval reaches outside the range");
    EXPECT_EQ(cost_error(head + "fit = [\"61 ns\", \"63 ns\"], " + tail),
              "m.toml:1: same_l3: the value lies outside its own fit interval");
    EXPECT_EQ(cost_error(head + "fit = [\"63 ns\", \"58 ns\"], " + tail),
              "m.toml:1: same_l3.fit: low end above high end");
    EXPECT_EQ(cost_error(head + "fit = \"60 ns\", " + tail),
              "m.toml:1: same_l3.fit: expected [low, high], got a string");
    EXPECT_EQ(cost_error("same_l3 = { value = \"60 ns\", mark = \"A\", range = [\"40 ns\", \"75 ns\"], "
                         "fit = [\"58 ns\", \"63 ns\"], source = \"x\" }\n"),
              "m.toml:1: same_l3.fit: only fitted (F) values have a fit interval");
}

TEST(Schema, marks_are_checked) {
    EXPECT_EQ(cost_error("same_l3 = { value = \"60 ns\", mark = \"A\", source = \"x\" }\n"),
              "m.toml:1: same_l3.range: an A value needs a plausible range [low, high]");
    EXPECT_EQ(cost_error("same_l3 = { value = \"60 ns\", mark = \"Q\", source = \"x\" }\n"),
              "m.toml:1: same_l3.mark: must be \"P\", \"D\", \"A\" or \"F\", got \"Q\"");
    EXPECT_EQ(
        cost_error("same_l3 = { value = \"90 ns\", mark = \"A\", range = [\"40 ns\", \"75 ns\"], source = \"x\" }\n"),
        "m.toml:1: same_l3: the value lies outside its own range");
    EXPECT_EQ(
        cost_error("same_l3 = { value = \"60 ns\", mark = \"F\", range = [\"40 ns\", \"75 ns\"], source = \"x\" }\n"),
        "m.toml:1: same_l3.target: a fitted (F) value names its calibration target");
    EXPECT_EQ(cost_error("same_l3 = { value = \"60 ns\", mark = \"P\" }\n"),
              "m.toml:1: same_l3.source: a marked value names its source (or, for A, its rationale)");
    EXPECT_EQ(cost_error("same_l3 = { value = \"60 ns\", mark = \"P\", source = \"x\", sauce = 1 }\n"),
              "m.toml:1: same_l3.sauce: unknown key");
    EXPECT_EQ(cost_error("same_l3 = \"60 ns\"\nratio = { value = 1 }\n"),
              "m.toml:2: ratio.mark: required key is missing");
}

}  // namespace
}  // namespace ipisim::config
