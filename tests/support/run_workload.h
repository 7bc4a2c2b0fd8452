// Test support: one point of a workload on a machine from machines/, as the experiment layer
// runs it (read the parameters, read [kernel], check both against the machine, build the system,
// run, record the engine's fingerprint).
#pragma once

#include <memory>
#include <string>

#include "experiment/system.h"
#include "kernel/kernel_config.h"
#include "sim/registry.h"
#include "support/kernel_world.h"
#include "workload/workload.h"

namespace ipisim::test {

inline workload::RunResult run_workload(const std::string& name, const std::string& machine,
                                        const std::string& params_toml, const std::string& kernel_toml,
                                        uint64_t seed = 1) {
    const config::Document params_doc = config::Document::parse(params_toml, "params.toml");
    const config::Document kernel_doc = config::Document::parse(kernel_toml, "kernel.toml");
    config::Table params = params_doc.root();
    config::Table kernel_table = kernel_doc.root();
    auto spec = std::make_shared<const hw::MachineSpec>(load_test_machine(machine));
    const kernel::MachineInfo info(*spec);
    std::unique_ptr<workload::Workload> w = sim::Registry<workload::Workload>::instance().create(name);
    w->read(params);
    const kernel::KernelConfig config = kernel::read_kernel_config(kernel_table, info);
    w->check(workload::PointSetup{params, kernel_table, info, config});
    experiment::System sys(spec, config);
    workload::RunResult r = w->run(workload::RunContext{seed, &sys.kernel()});
    sys.record_run(r);
    return r;
}

}  // namespace ipisim::test
