// TOML values as JSON, keys in file order (for results files and published rows).
#pragma once

#include <toml++/toml.h>
#include <nlohmann/json.hpp>

namespace ipisim::config {

nlohmann::ordered_json to_json(const toml::node& node);

}  // namespace ipisim::config
