// `ipisim probe`: runs every native measurement on the host (src/probe/*.h), each in its own
// guard so that one that cannot run (membarrier missing, one CPU, no permission) is recorded
// as skipped with the reason and the rest still run.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "probe/effort.h"
#include "probe/results.h"

namespace ipisim::probe {

struct ProbeOptions {
    bool quick = false;
    bool realtime = true;  // SCHED_FIFO measuring threads where permitted (probe/realtime.h)
    std::string command;   // recorded in every source
    std::function<void(const std::string&)> progress;  // one line per step; may be empty
    std::optional<Effort> effort;                      // tests: instead of quick's or full's
};

ProbeResults run_probe(const ProbeOptions& options);

// "2025-06-01T12:00:00Z" (the date every measured value's source carries).
std::string utc_timestamp();

}  // namespace ipisim::probe
