// "did you mean ...?" for a misspelt name: the known names closest to it by edit distance
// (insertions, deletions, substitutions and swaps of neighbours, case ignored).
//
//   suggestion("lst", {"list", "run", "reproduce"})  ->  "list"
//   did_you_mean("lst", names)                       ->  " (did you mean list?)"
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ipisim::config {

// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring).
size_t edit_distance(std::string_view a, std::string_view b);

// The known names within a third of the name's length (at least 1, at most 3 edits, and fewer
// than the name's length: "b" suggests nothing for "a") of it,
// closest first (ties in the given order), at most three; a known name that starts with the
// whole name ("seed000" for "seed000_rar") counts as close too. Empty if none is close.
std::vector<std::string> suggestions(std::string_view name, const std::vector<std::string>& known);

// The first of suggestions(), or "".
std::string suggestion(std::string_view name, const std::vector<std::string>& known);

// " (did you mean a?)", " (did you mean a or b?)", " (did you mean a, b or c?)", or "".
std::string did_you_mean(std::string_view name, const std::vector<std::string>& known);

}  // namespace ipisim::config
