// Strict checks of a probe-written host.toml through config::Schema declarations of every key
// the probe writes: types, units, bounds, applicability (a key only where it applies) and, for
// every cost, a valid provenance mark (P/A with a source; a range that holds the value). The
// machine loader is being rewritten on config::Schema; until then this is what reads the marks
// (the current loader reads the file through probe::host_machine_document).
#pragma once

#include "config/schema.h"
#include "config/table.h"

namespace ipisim::probe {

// Every problem is a config::ConfigError naming the file, line and dotted key. Returns every
// cost read with its provenance; an unmarked cost is an error (the probe marks all of them).
config::CostRecord check_host_file(const config::Document& doc);

}  // namespace ipisim::probe
