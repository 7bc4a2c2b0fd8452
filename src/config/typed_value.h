// A number of a parameter's type as a machine or experiment file writes it, for code that
// builds TOML from base-unit values (written configurations, generated and fitted machines).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <toml++/toml.h>

#include "config/schema.h"

namespace ipisim::config {

// Calls put with `v` (base units: ps, kHz) as its file writes it: a duration or frequency as text
// in its unit, an integer, a boolean (nonzero), or a number. A string or choice type is a
// std::logic_error: it has no number.
template <class Put>
void with_typed_value(ParamType type, double v, Put&& put) {
    switch (type) {
        case ParamType::duration:
            put(duration_text(sim::Picos(static_cast<uint64_t>(v))));
            return;
        case ParamType::frequency:
            put(frequency_text(sim::ClockDomain(static_cast<uint64_t>(v))));
            return;
        case ParamType::integer:
            put(static_cast<int64_t>(v));
            return;
        case ParamType::boolean:
            put(v != 0);
            return;
        case ParamType::number:
            put(v);
            return;
        case ParamType::string:
        case ParamType::choice:
            break;
    }
    throw std::logic_error("with_typed_value: a " + std::string(to_string(type)) + " has no number");
}

// [lo, hi] as a file writes a range or a fit interval: two values of the type.
inline toml::array typed_range(ParamType type, double lo, double hi) {
    toml::array a;
    for (const double end : {lo, hi}) with_typed_value(type, end, [&](auto&& v) { a.push_back(v); });
    return a;
}

}  // namespace ipisim::config
