// Turns an hwloc XML topology (`lstopo --of xml`) into a machine-file skeleton: [topology] from
// the XML, everything else generated from the machine schema (hw/machine_skeleton.h) with
// every cost a placeholder marked A.
#pragma once

#include <string>

namespace ipisim::hw {

// Returns the TOML text of a machine file that loads with load_machine(). Missing file,
// unreadable XML or a layout the model cannot hold: config::ConfigError naming the file.
std::string import_hwloc_xml(const std::string& path);

}  // namespace ipisim::hw
