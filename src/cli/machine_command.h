// `ipisim machine import FILE.xml [-o OUT.toml]`: a machine-file skeleton from hwloc XML.
#pragma once

#include <string>

namespace ipisim::cli {

// Writes the TOML to out_path, or to stdout when out_path is empty. Returns the exit code.
int machine_import_command(const std::string& xml_path, const std::string& out_path);

}  // namespace ipisim::cli
