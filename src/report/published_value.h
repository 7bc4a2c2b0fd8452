// How a published parameter value is compared with a point's (report/published.h).
#pragma once

#include <nlohmann/json.hpp>

namespace ipisim::report {

// True when a published parameter value equals a row's: numbers by value, durations by value
// ("1 ms" is "1000 us"), anything else exactly.
bool same_published_value(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

}  // namespace ipisim::report
