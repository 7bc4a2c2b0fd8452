// Turns an hwloc XML topology (`lstopo --of xml`) into a machine-file skeleton in the schema of
// machines/*.toml: the [topology] section is filled from the XML; every cost is a placeholder.
#pragma once

#include <string>

namespace ipisim::hw {

// Returns the TOML text of a machine file. Missing file or unreadable XML: config::ConfigError.
// The skeleton loads with load_machine(); every unmeasured cost carries an "[A] TODO: measure"
// comment and a conservative assumed value so the user sees what to replace.
std::string import_hwloc_xml(const std::string& path);

}  // namespace ipisim::hw
