// TOML text of a configuration tree with keys in file order (values set by --set last), so a
// written config.toml reads like the file it came from and re-runs to the same result.
#pragma once

#include <toml++/toml.h>
#include <string>

namespace ipisim::config {

// Tables become [sections] and [a.b] sub-sections, arrays of tables [[sections]]; tables that
// are inline (parsed from `{ ... }`, or marked inline, such as a marked cost) stay inline.
std::string to_toml_text(const toml::table& root);

}  // namespace ipisim::config
