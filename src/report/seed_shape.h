// An experiment printed in its seed's own table shape ([report] in the experiment file):
//
//   [report]                       # a pivot, like seed 000's loops/sec table
//   kind = "pivot"
//   title = "loops/sec"
//   rows = "threads"               # a [params] key: one line per value
//   columns = "flush"              # a [params] key: one column per value
//   value = "loops_per_sec"        # the metric in the cells
//   scale = 1000.0                 # optional: cells show value / scale ...
//   suffix = "k"                   # ... followed by suffix ("175k")
//
//   [report]                       # one line per sweep point, like seed 002's printk
//   kind = "lines"
//   line = "ipi_latency_init ipi from cpu{sender} to cpu0-95 delta of {rounds}times:{total_ns}"
//
// Placeholders name params or metrics. Where [published] has the cell, it is shown beside the
// prediction with the relative error.
#pragma once

#include <string>

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

// Reads [report] strictly; `params` are the experiment's parameters (pivot keys must be there).
SeedShape read_seed_shape(config::Table t, const config::Table& params);

std::string render_seed_shape(const SeedShape& shape, const ExperimentResults& results, const Published& published);

}  // namespace ipisim::report
