// Tornado plots of `ipisim sensitivity` (experiment/sensitivity.h sensitivity.json): for one
// screened quantity, a horizontal bar per cost, largest swing on top, from the nominal value to
// the value with the cost at the low end of its range (one colour) and at the high end (the
// other), in percent of the nominal value. SVG and PNG with the gnuplot script beside them:
// DIR/tornado_<n>.{gp,svg,png}.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace ipisim::report {

// The script for quantity `q` of a sensitivity.json (its `top` largest effects).
std::string tornado_script(const nlohmann::ordered_json& q, size_t top, const std::string& svg, const std::string& png);

// Draws tornado plots into dir: every gain quantity, else every metric at the last point (at
// most 8). Returns warning lines ("" if every plot was drawn; why none were, if gnuplot is not
// there or fails): plots never fail the command.
std::string draw_tornado_plots(const nlohmann::ordered_json& sensitivity, const std::filesystem::path& dir, size_t top);

}  // namespace ipisim::report
