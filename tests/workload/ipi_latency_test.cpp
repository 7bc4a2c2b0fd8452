// The ipi_latency workload (seed 002's module) runs on every interrupt controller: the GICv3
// barrier is a kernel option of GICv3 machines only; on x86 the same smp_call_function_single
// loop goes through the APIC driver.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "experiment/runner.h"
#include "support/paths.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

report::ExperimentResults run_on(const std::string& machine) {
    const auto path = ::ipisim::test::scratch_path(("ipisim_ipi_latency_" + machine + ".toml"));
    std::ofstream(path) << "[experiment]\nname = \"lat\"\nworkload = \"ipi_latency\"\nmachine = \"" << machine
                        << "\"\n[kernel]\nversion = \"6.6\"\n[params]\nrounds = 3\nsender = 0\n";
    RunOptions options;
    options.machines_dir = ipisim::test::source_path("machines");
    return run_experiment(load_experiment(path.string(), {}), options);
}

TEST(IpiLatency, runs_on_x2apic_xapic_and_gicv3_machines_with_one_ipi_per_remote_call) {
    for (const char* machine : {"toy2", "toy4", "toy8", "toy4_arm"}) {
        const report::ExperimentResults r = run_on(machine);
        ASSERT_EQ(r.rows.size(), 1U) << machine;
        const auto& m = r.rows[0].metrics;
        const int64_t cpus = machine == std::string("toy2") ? 2 : machine == std::string("toy8") ? 8 : 4;
        EXPECT_EQ(m["ipis"], 3 * (cpus - 1)) << machine << " " << m.dump();
        EXPECT_GT(m["ns_per_call"].get<double>(), m["call_ns_self"].get<double>() / cpus) << machine;
    }
}

}  // namespace
}  // namespace ipisim::experiment
