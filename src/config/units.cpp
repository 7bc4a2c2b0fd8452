#include "config/units.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

namespace ipisim::config {

namespace {

struct Quantity {
    double value;
    std::string unit;
};

std::optional<Quantity> split(std::string_view text, std::string* why) {
    size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == '-' ||
                               text[i] == '+' || text[i] == 'e' || text[i] == 'E')) {
        // An 'e' only belongs to the number when a digit or sign follows (so "5 ms" is not "5e").
        if ((text[i] == 'e' || text[i] == 'E') &&
            !(i + 1 < text.size() &&
              (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '-' || text[i + 1] == '+'))) {
            break;
        }
        ++i;
    }
    std::string number(text.substr(start, i - start));
    if (number.empty()) {
        *why = "expected a number with a unit, got \"" + std::string(text) + "\"";
        return std::nullopt;
    }
    char* end = nullptr;
    double v = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(v)) {
        *why = "\"" + number + "\" is not a number";
        return std::nullopt;
    }
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t ustart = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::string unit(text.substr(ustart, i - ustart));
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i != text.size()) {
        *why = "unexpected text after the unit in \"" + std::string(text) + "\"";
        return std::nullopt;
    }
    if (v < 0) {
        *why = "must not be negative";
        return std::nullopt;
    }
    return Quantity{v, unit};
}

}  // namespace

std::optional<sim::Picos> parse_duration(std::string_view text, std::string* why) {
    auto q = split(text, why);
    if (!q) return std::nullopt;
    static const std::vector<std::pair<std::string, double>> units = {
        {"ps", 1.0}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
    if (q->unit.empty()) {
        *why = "a duration needs a unit (ps, ns, us, ms or s), got \"" + std::string(text) + "\"";
        return std::nullopt;
    }
    for (const auto& [name, scale] : units) {
        if (q->unit == name) {
            double ps = q->value * scale;
            // Below 2^62 ps (53 days) the conversion is exact enough and sums of two stay in range.
            if (ps >= 4.611686018427388e18) {
                *why = fmt::format("duration too large: \"{}\" (at most 53 days)", text);
                return std::nullopt;
            }
            return sim::Picos(static_cast<uint64_t>(std::llround(ps)));
        }
    }
    *why = "unknown duration unit \"" + q->unit + "\" (use ps, ns, us, ms or s)";
    return std::nullopt;
}

std::optional<sim::ClockDomain> parse_frequency(std::string_view text, std::string* why) {
    auto q = split(text, why);
    if (!q) return std::nullopt;
    static const std::vector<std::pair<std::string, double>> units = {
        {"Hz", 1e-3}, {"kHz", 1.0}, {"MHz", 1e3}, {"GHz", 1e6}};
    if (q->unit.empty()) {
        *why = "a frequency needs a unit (Hz, kHz, MHz or GHz), got \"" + std::string(text) + "\"";
        return std::nullopt;
    }
    for (const auto& [name, scale] : units) {
        if (q->unit == name) {
            double khz = q->value * scale;
            if (khz < 1.0) {
                *why = "frequency must be at least 1 kHz";
                return std::nullopt;
            }
            if (khz > 1e9) {
                *why = fmt::format("frequency too large: \"{}\" (at most 1 THz)", text);
                return std::nullopt;
            }
            return sim::ClockDomain(static_cast<uint64_t>(std::llround(khz)));
        }
    }
    *why = "unknown frequency unit \"" + q->unit + "\" (use Hz, kHz, MHz or GHz)";
    return std::nullopt;
}

}  // namespace ipisim::config
