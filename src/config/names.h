#pragma once
// Small helpers over lists of names (keys, metrics, parameters), shared by the experiment and
// report layers so that each file does not carry its own copy.

#include <string>
#include <vector>

namespace ipisim::config {

// Whether `names` holds `name`.
bool contains(const std::vector<std::string>& names, const std::string& name);

// "a, b, c" (empty for an empty list).
std::string listed(const std::vector<std::string>& names);

// The names inside "{...}" of a line template, in order: "x={threads} {loops}" -> threads, loops.
// An unclosed "{" ends the scan.
std::vector<std::string> placeholders(const std::string& tmpl);

}  // namespace ipisim::config
