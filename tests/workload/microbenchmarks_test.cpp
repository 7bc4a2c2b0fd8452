// The calibration microbenchmarks (experiments/micro_*.toml) on toy machines: each measures the
// cost it is named after exactly, and moves by exactly a change of that cost.
//
// toy4 (machines/toy4.toml): CPUs 0 and 2 are SMT siblings, 0 and 1 share the L3; cache-line
// transfer 10 ns (smt) / 50 ns (same_l3); IRQ entry 200, exit 100, EOI 50 ns; fabric delivery
// 500 ns; idle states POLL, C1 (exit 1 us), C6 (exit 100 us). toy2: context switch 1 us.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/error.h"
#include "experiment/runner.h"

namespace ipisim::experiment {
namespace {

const std::string kSource = IPISIM_SOURCE_DIR;

std::vector<nlohmann::ordered_json> run(const std::string& name, const std::vector<std::string>& overrides = {}) {
    RunOptions options;
    options.machines_dir = kSource + "/machines";
    const report::ExperimentResults r =
        run_experiment(load_experiment(kSource + "/experiments/" + name + ".toml", overrides), options);
    std::vector<nlohmann::ordered_json> out;
    for (const report::ResultRow& row : r.rows) out.push_back(row.metrics);
    return out;
}

double at(const nlohmann::ordered_json& m, const char* metric) {
    return m.at(metric).get<double>();
}

TEST(Microbenchmarks, cache_line_ping_pong_measures_the_transfer_latency_of_each_distance_class) {
    const auto m = run("micro_cacheline");
    ASSERT_EQ(m.size(), 2U);
    EXPECT_DOUBLE_EQ(at(m[0], "one_way_ns"), 10.0);  // smt
    EXPECT_EQ(m[0]["peer_cpu"], 2);
    EXPECT_DOUBLE_EQ(at(m[1], "one_way_ns"), 50.0);  // same_l3
    EXPECT_EQ(m[1]["peer_cpu"], 1);
    // A line busy 20 ns per transaction adds its occupancy to every hop.
    const auto busy = run("micro_cacheline", {"machine.coherence.line_occupancy=\"20 ns\""});
    EXPECT_DOUBLE_EQ(at(busy[1], "one_way_ns"), 70.0);
}

TEST(Microbenchmarks, a_busy_target_round_trip_moves_with_the_delivery_and_its_irq_time_with_the_irq_entry) {
    const auto m = run("micro_ipi_rtt");
    ASSERT_EQ(m.size(), 2U);
    const double rtt = at(m[1], "rtt_ns");
    const double irq = at(m[1], "target_irq_ns");
    EXPECT_EQ(m[1]["ipis"], 20);
    // The target's interrupt time holds at least entry + exit + EOI (350 ns), not the delivery.
    EXPECT_GE(irq, 350.0);
    const auto slower = run("micro_ipi_rtt", {"machine.intc.fabric.same_l3=\"700 ns\""});
    EXPECT_DOUBLE_EQ(at(slower[1], "rtt_ns"), rtt + 200.0);
    EXPECT_DOUBLE_EQ(at(slower[1], "target_irq_ns"), irq);
    const auto entry = run("micro_ipi_rtt", {"machine.cpu.irq_entry=\"300 ns\""});
    EXPECT_DOUBLE_EQ(at(entry[1], "rtt_ns"), rtt + 100.0);
    EXPECT_DOUBLE_EQ(at(entry[1], "target_irq_ns"), irq + 100.0);
}

TEST(Microbenchmarks, an_idle_target_adds_its_idle_state_exit_latency_to_the_round_trip) {
    const auto m = run("micro_ipi_rtt");
    const double busy = at(m[1], "rtt_ns");
    EXPECT_DOUBLE_EQ(at(m[0], "rtt_ns"), busy + 100'000.0);  // the deepest state, C6
    const auto c1 = run("micro_ipi_rtt", {"params.idle_state=\"C1\"", "sweep.target_state=[\"idle\"]"});
    EXPECT_DOUBLE_EQ(at(c1[0], "rtt_ns"), busy + 1'000.0);
    // A polling target is woken without an interrupt.
    const auto poll = run("micro_ipi_rtt", {"params.idle_state=\"POLL\"", "sweep.target_state=[\"idle\"]"});
    EXPECT_EQ(poll[0]["ipis"], 0);
    EXPECT_LT(at(poll[0], "rtt_ns"), busy);
}

TEST(Microbenchmarks, a_broadcast_sends_one_ipi_per_other_cpu_and_waits_for_the_slowest) {
    const auto m = run("micro_ipi_broadcast");
    ASSERT_EQ(m.size(), 2U);
    EXPECT_EQ(m[1]["ipis"], 20 * 3);
    EXPECT_EQ(m[1]["target_cpu"], 3);
    const double single = at(run("micro_ipi_rtt")[1], "rtt_ns");
    EXPECT_GT(at(m[1], "rtt_ns"), single);
}

TEST(Microbenchmarks, a_membarrier_round_trip_is_one_call_inside_a_system_call) {
    const std::vector<std::string> mb = {"params.mode=\"membarrier\"", "sweep.target_state=[\"busy\"]"};
    const auto m = run("micro_ipi_rtt", mb);
    ASSERT_EQ(m.size(), 1U);
    EXPECT_EQ(m[0]["ipis"], 20);
    EXPECT_EQ(m[0]["target_cpu"], 1);
    std::vector<std::string> slower = mb;
    slower.push_back("machine.cpu.syscall=\"300 ns\"");  // toy4: 100 ns
    EXPECT_DOUBLE_EQ(at(run("micro_ipi_rtt", slower)[0], "rtt_ns"), at(m[0], "rtt_ns") + 200.0);
}

TEST(Microbenchmarks, context_switch_ping_pong_moves_by_exactly_the_context_switch_cost) {
    const auto m = run("micro_ctxswitch");
    ASSERT_EQ(m.size(), 1U);
    EXPECT_EQ(m[0]["context_switches"], 100);  // two per round, 50 rounds
    const double base = at(m[0], "ns_per_switch");
    EXPECT_GE(base, 1'000.0);  // at least the switch itself
    const auto slower = run("micro_ctxswitch", {"machine.cpu.context_switch=\"1500 ns\""});
    EXPECT_DOUBLE_EQ(at(slower[0], "ns_per_switch"), base + 500.0);
}

TEST(Microbenchmarks, a_one_thread_tlb_flush2_sends_no_ipi) {
    const auto m = run("micro_tlb_flush2");
    ASSERT_EQ(m.size(), 1U);
    EXPECT_GT(at(m[0], "loops_per_sec"), 0.0);
    EXPECT_DOUBLE_EQ(at(m[0], "ipis_per_loop"), 0.0);
}

TEST(Microbenchmarks, a_distance_class_the_machine_lacks_is_an_error_at_the_parameter) {
    try {
        run("micro_cacheline", {"sweep.distance=[\"cross_package\"]"});
        FAIL() << "no error";
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("no CPU at distance cross_package"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace ipisim::experiment
