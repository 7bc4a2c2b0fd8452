// The readable tables of an `ipisim sensitivity` screen (its sensitivity.json,
// experiment/sensitivity.h): per quantity, its nominal value and the `top` costs that move it
// most, with the value at each end of the cost's range, the swing and the swing relative to the
// nominal value; then the range ends the machine refuses. Printed by the command and shown in
// the HTML report (report/html_report.h). A sensitivity.json that lacks a member it needs, or
// holds one of another type, is an exception (nlohmann::json's, or std::out_of_range for a cost
// the quantities name but the costs do not list); never undefined behaviour.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace ipisim::report {

std::string sensitivity_text(const nlohmann::ordered_json& sensitivity, size_t top);

}  // namespace ipisim::report
