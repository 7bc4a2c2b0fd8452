// Strict checks of a probe-written host.toml: it is read by the machine loader itself (the
// machine schema: types, units, bounds, applicability, marks with their sources and ranges),
// and on top of that every cost must carry a mark (P or A), since the probe marks all of them.
#pragma once

#include "config/schema.h"
#include "config/table.h"
#include "hw/machine.h"

namespace ipisim::probe {

// Every problem is a config::ConfigError naming the file, line and dotted key.
hw::MachineSpec check_host_file(const config::Document& doc);

}  // namespace ipisim::probe
