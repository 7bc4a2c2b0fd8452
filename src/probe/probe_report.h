// What `ipisim probe` prints and what it writes beside host.toml: a readable summary (host
// facts, every figure as median with spread, what was skipped and why) and probe.json (every
// figure with its full spread, the microbenchmark data a later `calibrate` fits to).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "probe/results.h"

namespace ipisim::probe {

std::string render_probe_summary(const ProbeResults& r);

nlohmann::ordered_json probe_json(const ProbeResults& r);

}  // namespace ipisim::probe
