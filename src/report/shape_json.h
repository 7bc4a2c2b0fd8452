// The seed's table shape (report/seed_shape.h) as it is kept in results.json ("report"), so a
// results folder alone can be tabulated, plotted and reported again:
//   {"kind": "pivot", "title", "rows", "columns", "value", "scale", "suffix"}
//   {"kind": "lines", "title", "line"}
//   {} when the experiment has no [report].
#pragma once

#include <nlohmann/json.hpp>

#include "report/seed_shape.h"

namespace ipisim::report {

nlohmann::ordered_json shape_json(const SeedShape& shape);
// The inverse; anything it does not recognise gives Kind::none.
SeedShape shape_from_json(const nlohmann::ordered_json& j);

}  // namespace ipisim::report
