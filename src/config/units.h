// Parsing of quantities that must carry a unit: durations ("5 ns") and frequencies ("2.1 GHz").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/time.h"

namespace ipisim::config {

// "250 ps", "5 ns", "1.5us", "10 ms", "1 s" -> picoseconds (rounded to nearest). nullopt and a
// reason in *why when the text has no unit, an unknown unit, or is negative.
std::optional<sim::Picos> parse_duration(std::string_view text, std::string* why);

// "2.1 GHz", "800 MHz" -> clock domain (kHz resolution).
std::optional<sim::ClockDomain> parse_frequency(std::string_view text, std::string* why);

}  // namespace ipisim::config
