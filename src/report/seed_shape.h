// An experiment printed in its seed's own table shape ([report] in the experiment file):
//
//   [report]                       # a pivot, like seed 000's loops/sec table
//   kind = "pivot"
//   title = "loops/sec"
//   rows = "threads"               # a row parameter: one line per value
//   columns = "kernel.tlb_flush"   # a row parameter: one column per value
//   value = "loops_per_sec"        # the metric in the cells
//   scale = 1000.0                 # optional: cells show value / scale ...
//   suffix = "k"                   # ... followed by suffix ("175k")
//
//   [report]                       # one line per sweep point, like seed 002's printk
//   kind = "lines"
//   line = "ipi_latency_init ipi from cpu{sender} to cpu0-95 delta of {rounds}times:{total_ns}"
//
// Row parameters are named as results rows name them: [params] keys bare, [kernel] keys as
// "kernel.X". Placeholders name row parameters or metrics. Where [published] has the cell, it
// is shown beside the prediction with the relative error.
#pragma once

#include <string>
#include <vector>

#include "config/schema.h"
#include "config/table.h"
#include "report/published.h"
#include "report/results.h"

namespace ipisim::report {

struct SeedShape {
    enum class Kind { none, pivot, lines };
    Kind kind = Kind::none;
    std::string title;
    std::string rows, columns, value;  // pivot
    double scale = 1.0;
    std::string suffix;
    std::string line;  // lines
};

// The declaration of [report] (registered in config::schema_catalog() as "report").
const config::Schema<SeedShape>& seed_shape_schema();

// Reads [report] strictly: pivot rows and columns must be among `row_params` (the names results
// rows give their parameters), the pivot value among `metrics`, and line placeholders either.
SeedShape read_seed_shape(const config::Table& t, const std::vector<std::string>& row_params,
                          const std::vector<std::string>& metrics);

std::string render_seed_shape(const SeedShape& shape, const ExperimentResults& results, const Published& published);

}  // namespace ipisim::report
