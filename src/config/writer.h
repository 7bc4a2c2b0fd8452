// TOML text of a configuration tree with keys in file order (values set by --set last), so a
// written config.toml reads like the file it came from and re-runs to the same result.
#pragma once

#include <toml++/toml.h>
#include <string>
#include <vector>

namespace ipisim::config {

// Top-level tables become [sections], their sub-tables [a.b] sub-sections, arrays of tables
// [[sections]]; tables that are inline (parsed from `{ ... }`, or marked inline, such as a
// marked cost) stay inline. With a prefix, `root` is written as the table `prefix` of a larger
// document: its top-level keys under [prefix], its tables as [prefix.key] and its arrays of
// tables as [[prefix.key]].
std::string to_toml_text(const toml::table& root, const std::string& prefix = "");

// One [header] section of `t`: the keys of `order` first (tables built in memory have no file
// order), then the others in file order; inline tables inline, other sub-tables as
// [header.key] sub-sections and arrays of tables as [[header.key]] blocks after the section.
std::string section_text(const std::string& header, const toml::table& t, const std::vector<std::string>& order = {});

// A value as TOML text (strings escaped, floats recognisably floats, tables inline), and a key
// (bare, or quoted when it must be).
std::string value_text(const toml::node& n);
std::string key_text(const std::string& key);

}  // namespace ipisim::config
