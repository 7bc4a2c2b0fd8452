#include "workload/system.h"

#include "config/error.h"

namespace ipisim::workload {

System::System(const RunContext& ctx, const std::string& workload) {
    if (ctx.machine.empty()) {
        throw config::ConfigError("(experiment)", 0, "experiment.machine",
                                  "the " + workload + " workload needs a machine");
    }
    spec = hw::load_machine_by_name(ctx.machines_dir, ctx.machine);
    build();
}

System::System(hw::MachineSpec machine) : spec(std::move(machine)) { build(); }

void System::build() {
    platform = std::make_unique<hw::Platform>(eng, spec);
    kernel = std::make_unique<kernel::Kernel>(*platform);
}

System::~System() {
    eng.shutdown();
    kernel.reset();
    platform.reset();
}

}  // namespace ipisim::workload
