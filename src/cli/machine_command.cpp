#include "cli/machine_command.h"

#include <fmt/format.h>

#include "hw/hwloc_import.h"
#include "report/results_files.h"

namespace ipisim::cli {

int machine_import_command(const std::string& xml_path, const std::string& out_path) {
    const std::string toml_text = hw::import_hwloc_xml(xml_path);
    if (out_path.empty()) {
        fmt::print("{}", toml_text);
    } else {
        report::write_text_file(out_path, toml_text);
        fmt::print(stderr, "wrote {}\n", out_path);
    }
    return 0;
}

}  // namespace ipisim::cli
