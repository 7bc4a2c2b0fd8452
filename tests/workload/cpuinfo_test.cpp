// The cpuinfo workload (seed 004) end to end on toy8: parameters, metrics, determinism.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "config/error.h"
#include "support/run_workload.h"

using namespace ipisim;

namespace {

// The seed's kernel: 5.17 at HZ=1000, arch_freq_prepare_all `variant`.
workload::RunResult run_cpuinfo(const std::string& variant, const std::string& gap, double busy = 1.0,
                                uint64_t seed = 1) {
    const std::string params =
        "busy_fraction = " + std::to_string(busy) + "\nidle_state = \"C1\"\nopens = 3\ngap = \"" + gap + "\"\n";
    const std::string kernel = "version = \"5.17\"\nhz = 1000\narch_freq_prepare_all = \"" + variant + "\"\n";
    return test::run_workload("cpuinfo", "toy8", params, kernel, seed);
}

double metric(const workload::RunResult& r, const char* name) {
    return r.metrics.at(name).get<double>();
}

}  // namespace

TEST(Cpuinfo, many_opens_faster_than_the_serial_loop_with_the_same_ipis) {
    const auto serial = run_cpuinfo("serial_single", "50 ms");
    const auto many = run_cpuinfo("many", "50 ms");
    EXPECT_LT(metric(many, "open_latency_us_median"), metric(serial, "open_latency_us_median"));
    EXPECT_EQ(metric(serial, "ipis_per_open"), 7.0);  // every other CPU is busy
    EXPECT_EQ(metric(many, "ipis_per_open"), 7.0);
    EXPECT_EQ(serial.metrics.at("msleeps").get<uint64_t>(), 0u);
    EXPECT_GT(metric(serial, "open_csd_spin_us_mean"), 0.0);
}

TEST(Cpuinfo, a_rare_reader_sleeps_in_serial_single_and_refreshes_again_while_reading) {
    const auto serial = run_cpuinfo("serial_single", "2 s");
    EXPECT_EQ(serial.metrics.at("msleeps").get<uint64_t>(), 3u);
    EXPECT_GT(metric(serial, "open_latency_us_median"), 10'000.0);
    EXPECT_LT(metric(serial, "open_loop_us_median"), 1'000.0);
    // After the 10-11 ms sleep the samples are older than 10 ms again: the read sends one
    // sync IPI per busy CPU, on top of the open's async ones.
    EXPECT_EQ(metric(serial, "ipis_per_open"), 14.0);
    const auto many = run_cpuinfo("many", "2 s");
    EXPECT_EQ(many.metrics.at("msleeps").get<uint64_t>(), 0u);
    EXPECT_LT(metric(many, "open_latency_us_median"), 100.0);
    EXPECT_EQ(metric(many, "ipis_per_open"), 7.0);
}

TEST(Cpuinfo, idle_cpus_are_not_interrupted) {
    const auto r = run_cpuinfo("serial_single", "50 ms", 0.0);
    EXPECT_EQ(metric(r, "ipis_per_open"), 0.0);
    EXPECT_EQ(r.metrics.at("busy_cpus").get<int64_t>(), 0);
}

TEST(Cpuinfo, the_busy_cpus_come_from_the_seed_and_runs_are_deterministic) {
    const auto a = run_cpuinfo("many", "50 ms", 0.5, 1);
    const auto b = run_cpuinfo("many", "50 ms", 0.5, 1);
    EXPECT_EQ(a.fingerprint, b.fingerprint);
    EXPECT_EQ(a.metrics, b.metrics);
    EXPECT_EQ(a.metrics.at("busy_cpus").get<int64_t>(), 4);  // round(0.5 x 7)
    EXPECT_EQ(metric(a, "ipis_per_open"), 4.0);
}

TEST(Cpuinfo, a_kernel_without_arch_freq_prepare_all_is_a_config_error_at_its_version) {
    try {
        test::run_workload("cpuinfo", "toy8", "busy_fraction = 1.0\nidle_state = \"C1\"\nopens = 1\ngap = \"2 s\"\n",
                           "version = \"5.19\"\n");
        FAIL() << "no error";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "version");
        EXPECT_EQ(e.line(), 1);
    }
}

TEST(Cpuinfo, an_idle_state_the_machine_lacks_is_a_config_error_naming_the_states_it_has) {
    try {
        test::run_workload("cpuinfo", "toy8", "busy_fraction = 1.0\nidle_state = \"C9\"\nopens = 1\ngap = \"2 s\"\n",
                           "version = \"5.17\"\n");
        FAIL() << "no error";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "idle_state");
        EXPECT_NE(std::string(e.what()).find("C1"), std::string::npos) << e.what();
    }
}

TEST(Cpuinfo, a_busy_fraction_that_is_not_a_number_is_a_config_error) {
    EXPECT_THROW(
        test::run_workload("cpuinfo", "toy8", "busy_fraction = nan\nidle_state = \"C1\"\nopens = 1\ngap = \"2 s\"\n",
                           "version = \"5.17\"\n"),
        config::ConfigError);
}

TEST(Cpuinfo, an_unknown_variant_is_a_config_error) {
    EXPECT_THROW(run_cpuinfo("parallel", "50 ms"), config::ConfigError);
}
