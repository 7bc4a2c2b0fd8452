#include "cli/compare_command.h"

#include <fmt/format.h>

#include "report/compare.h"
#include "report/summary.h"

namespace ipisim::cli {

int compare_command(const CompareArgs& args) {
    report::CompareOptions options;
    if (!args.metrics.empty()) options.metrics = report::parse_metric_list(args.metrics);
    fmt::print("{}", report::compare_folders(args.a, args.b, options));
    return 0;
}

}  // namespace ipisim::cli
