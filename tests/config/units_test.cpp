// Quantities must carry a unit; every accepted spelling converts exactly.
#include <gtest/gtest.h>

#include "config/units.h"

namespace ipisim::config {
namespace {

using namespace sim::literals;

sim::Picos duration_of(const char* text) {
    std::string why;
    auto d = parse_duration(text, &why);
    EXPECT_TRUE(d.has_value()) << text << ": " << why;
    return d.value_or(sim::Picos::zero());
}

std::string duration_error(const char* text) {
    std::string why;
    EXPECT_FALSE(parse_duration(text, &why).has_value()) << text;
    return why;
}

TEST(Units, every_duration_unit_converts_to_picoseconds) {
    EXPECT_EQ(duration_of("250 ps"), 250_ps);
    EXPECT_EQ(duration_of("5 ns"), 5_ns);
    EXPECT_EQ(duration_of("1.5us"), 1500_ns);
    EXPECT_EQ(duration_of("10 ms"), 10_ms);
    EXPECT_EQ(duration_of("1 s"), 1_s);
    EXPECT_EQ(duration_of("  2e3 ns  "), 2_us);
}

TEST(Units, fractional_picoseconds_round_to_nearest) {
    EXPECT_EQ(duration_of("1.4 ps"), 1_ps);
    EXPECT_EQ(duration_of("0.0016 ns"), 2_ps);
}

TEST(Units, a_duration_without_a_unit_is_rejected) {
    EXPECT_EQ(duration_error("5"), "a duration needs a unit (ps, ns, us, ms or s), got \"5\"");
}

TEST(Units, an_unknown_duration_unit_is_rejected) {
    EXPECT_EQ(duration_error("5 parsecs"), "unknown duration unit \"parsecs\" (use ps, ns, us, ms or s)");
    EXPECT_EQ(duration_error("5 NS"), "unknown duration unit \"NS\" (use ps, ns, us, ms or s)");
}

TEST(Units, a_negative_duration_is_rejected) {
    EXPECT_EQ(duration_error("-5 ns"), "must not be negative");
}

TEST(Units, text_that_is_not_a_number_is_rejected) {
    EXPECT_EQ(duration_error("ns"), "expected a number with a unit, got \"ns\"");
    EXPECT_EQ(duration_error("5 ns extra"), "unexpected text after the unit in \"5 ns extra\"");
}

TEST(Units, an_m_after_the_number_is_a_unit_not_an_exponent) {
    EXPECT_EQ(duration_of("5 ms"), 5_ms);
}

TEST(Units, frequencies_are_held_in_kilohertz) {
    std::string why;
    EXPECT_EQ(parse_frequency("2.1 GHz", &why)->khz(), 2'100'000U);
    EXPECT_EQ(parse_frequency("800 MHz", &why)->khz(), 800'000U);
    EXPECT_EQ(parse_frequency("2.45GHz", &why)->khz(), 2'450'000U);
}

TEST(Units, a_frequency_without_a_unit_or_below_one_kilohertz_is_rejected) {
    std::string why;
    EXPECT_FALSE(parse_frequency("2100", &why));
    EXPECT_EQ(why, "a frequency needs a unit (Hz, kHz, MHz or GHz), got \"2100\"");
    EXPECT_FALSE(parse_frequency("10 Hz", &why));
    EXPECT_EQ(why, "frequency must be at least 1 kHz");
    EXPECT_FALSE(parse_frequency("2 ghz", &why));
    EXPECT_EQ(why, "unknown frequency unit \"ghz\" (use Hz, kHz, MHz or GHz)");
}

}  // namespace
}  // namespace ipisim::config
