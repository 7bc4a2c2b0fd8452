#include "probe/host_schema.h"

#include "config/error.h"

namespace ipisim::probe {

hw::MachineSpec check_host_file(const config::Document& doc) {
    hw::MachineSpec spec = hw::load_machine(doc, "host");
    for (const config::CostValue& c : spec.costs) {
        if (c.provenance.mark == config::Mark::unmarked) {
            throw config::ConfigError(c.file, c.line, c.key, "a probe-written cost must carry its mark (P or A)");
        }
    }
    return spec;
}

}  // namespace ipisim::probe
