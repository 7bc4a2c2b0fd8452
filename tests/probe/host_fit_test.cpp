// cli/probe_fit.h: `ipisim probe` fits the interrupt delivery of the caller-target distance class
// to its own membarrier round trip and the fault path's unitemized cost to its one-thread
// MADV_DONTNEED + refault loop (and nothing else), rewrites host.toml with them marked F, and
// says why it fitted nothing when a microbenchmark was not measured or sent no IPI.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/probe_fit.h"
#include "experiment/calibrate.h"
#include "hw/machine.h"
#include "probe/host_file.h"
#include "probe/summary.h"
#include "sample_results.h"
#include "support/paths.h"
#include "support/scratch_path.h"

namespace ipisim::cli {
namespace {

const std::string kExperiments = ipisim::test::source_path("experiments");

std::filesystem::path write_host(const probe::ProbeResults& r, const std::string& name) {
    const auto dir = ::ipisim::test::scratch_path("ipisim_host_fit_" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "host.toml") << probe::host_machine_text(r);
    return dir / "host.toml";
}

// The model's value of the one target of DIR/calibrate/TARGETS with its cost at `value`.
double predicted_on_fitted_host(const std::filesystem::path& host, const std::string& targets, double value) {
    const experiment::CalibrationSetup s = experiment::prepare_calibration(
        host.string(), experiment::load_targets((host.parent_path() / "calibrate" / targets).string()), {},
        kExperiments);
    return experiment::evaluate(s, {value}, 1).predicted[0].value_or(0);
}

TEST(HostFit, the_delivery_latency_is_fitted_to_the_membarrier_round_trip_and_marked_f) {
    probe::ProbeResults r = probe::testing::sample_results();
    r.membarrier_spinning = probe::MembarrierFigure{probe::summarize({5900, 6000, 6100}), 1.0, probe::Spread{}};
    const auto host = write_host(r, "fitted");
    const hw::MachineSpec before = hw::load_machine(host.string());
    const std::string summary = fit_host_machine(r, host, kExperiments);
    EXPECT_NE(summary.find("fitted intc.fabric.same_l3 (F)"), std::string::npos) << summary;
    const hw::MachineSpec after = probe::load_host_machine(
        [&] {
            std::ifstream in(host);
            return std::string(std::istreambuf_iterator<char>(in), {});
        }(),
        host.string());
    const config::CostValue* fabric = after.cost("intc.fabric.same_l3");
    ASSERT_NE(fabric, nullptr);
    EXPECT_EQ(fabric->provenance.mark, config::Mark::F);
    EXPECT_NE(fabric->provenance.target.find("membarrier round trip"), std::string::npos);
    EXPECT_GT(fabric->value, before.cost("intc.fabric.same_l3")->value);
    // Nothing else moved: the IRQ entry stays the assumption it was.
    EXPECT_EQ(after.cost("cpu.irq_entry")->provenance.mark, config::Mark::A);
    EXPECT_EQ(after.cost("cpu.irq_entry")->value, before.cost("cpu.irq_entry")->value);
    // The model on the fitted file predicts the measured round trip (within its 5-95% spread).
    const auto dir = host.parent_path() / "calibrate";
    const experiment::CalibrationSetup s = experiment::prepare_calibration(
        host.string(), experiment::load_targets((dir / "membarrier_targets.toml").string()), {}, kExperiments);
    const experiment::Evaluation e = experiment::evaluate(s, {fabric->value}, 1);
    ASSERT_TRUE(e.predicted[0].has_value());
    EXPECT_NEAR(*e.predicted[0], 6000.0, 100.0);
}

TEST(HostFit, nothing_is_fitted_without_a_membarrier_round_trip_or_when_it_sent_no_ipi) {
    probe::ProbeResults r = probe::testing::sample_results();
    const auto host = write_host(r, "none");
    const std::string none = fit_host_machine(r, host, kExperiments);
    EXPECT_NE(none.find("not fitted: the membarrier round trip was not measured"), std::string::npos) << none;
    EXPECT_NE(none.find("not fitted: the one-thread MADV_DONTNEED + refault loop was not measured"), std::string::npos)
        << none;
    EXPECT_NE(none.find("not fitted: the target's lost time per IPI, as the membarrier round trip was not measured"),
              std::string::npos)
        << none;
    EXPECT_NE(none.find("nothing fitted"), std::string::npos);
    r.membarrier_spinning = probe::MembarrierFigure{probe::summarize({900, 1000, 1100}), 0.0, probe::Spread{}};
    EXPECT_NE(fit_host_machine(r, host, kExperiments).find("not fitted: the membarrier calls sent 0.00"),
              std::string::npos);
    EXPECT_EQ(hw::load_machine(host.string()).cost("intc.fabric.same_l3")->provenance.mark, config::Mark::A);
    EXPECT_EQ(hw::load_machine(host.string()).cost("cpu.handle_mm_fault")->provenance.mark, config::Mark::A);
}

TEST(HostFit, the_fault_path_is_fitted_to_the_one_thread_refault_loop_and_the_shootdown_loop_is_not_a_target) {
    probe::ProbeResults r = probe::testing::sample_results();
    // 5 us per write fault + MADV_DONTNEED, slower than the assumed path; the loop with a
    // second thread (a shootdown each time) is a multi-CPU figure and must not be used.
    probe::DontneedFigure alone;
    alone.cycle_ns = probe::summarize({4900, 5000, 5100});
    probe::DontneedFigure shared = alone;
    shared.sibling_cpu = 1;
    shared.cycle_ns = probe::summarize({29000, 30000, 31000});
    r.dontneed = {alone, shared};
    const auto host = write_host(r, "fault");
    const hw::MachineSpec before = hw::load_machine(host.string());
    const std::string summary = fit_host_machine(r, host, kExperiments);
    EXPECT_NE(summary.find("fitted cpu.handle_mm_fault (F)"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("fitted intc.fabric"), std::string::npos) << summary;
    const hw::MachineSpec after = hw::load_machine(host.string());
    const config::CostValue* fault = after.cost("cpu.handle_mm_fault");
    ASSERT_NE(fault, nullptr);
    EXPECT_EQ(fault->provenance.mark, config::Mark::F);
    EXPECT_NE(fault->provenance.target.find("write fault + MADV_DONTNEED + read-back, one thread"), std::string::npos);
    EXPECT_GT(fault->value, before.cost("cpu.handle_mm_fault")->value);
    EXPECT_EQ(after.cost("intc.fabric.same_l3")->value, before.cost("intc.fabric.same_l3")->value);
    // The model on the fitted file runs the measured loop: 200k loops/s, within 2%.
    const auto dir = host.parent_path() / "calibrate";
    const experiment::CalibrationSetup s = experiment::prepare_calibration(
        host.string(), experiment::load_targets((dir / "fault_targets.toml").string()), {}, kExperiments);
    ASSERT_EQ(s.targets.targets.size(), 1U);
    const experiment::Evaluation e = experiment::evaluate(s, {fault->value}, 1);
    ASSERT_TRUE(e.predicted[0].has_value());
    EXPECT_NEAR(*e.predicted[0], 200000.0, 4000.0);
    EXPECT_EQ(summary.find("at its range's"), std::string::npos) << summary;
}

TEST(HostFit, the_receive_cost_is_fitted_to_the_targets_lost_time_before_the_delivery_to_the_round_trip) {
    probe::ProbeResults r = probe::testing::sample_results();
    // A VM-like target: 11 us of its time per IPI, in a 20 us round trip.
    r.membarrier_spinning =
        probe::MembarrierFigure{probe::summarize({19000, 20000, 21000}), 1.0, probe::summarize({10500, 11000, 11500})};
    const auto host = write_host(r, "lost");
    const std::string summary = fit_host_machine(r, host, kExperiments);
    const size_t entry = summary.find("fitted cpu.irq_entry (F)");
    const size_t fabric = summary.find("fitted intc.fabric.same_l3 (F)");
    ASSERT_NE(entry, std::string::npos) << summary;
    ASSERT_NE(fabric, std::string::npos) << summary;
    EXPECT_LT(entry, fabric);
    const hw::MachineSpec after = hw::load_machine(host.string());
    EXPECT_NE(after.cost("cpu.irq_entry")->provenance.target.find("time the spinning target lost per IPI"),
              std::string::npos);
    const auto predicted = [&](const std::string& targets, const std::string& key) {
        return predicted_on_fitted_host(host, targets, after.cost(key)->value);
    };
    // Both hold on the final file: the delivery was fitted with the receive cost in place.
    EXPECT_NEAR(predicted("membarrier_lost_targets.toml", "cpu.irq_entry"), 11000.0, 220.0);
    EXPECT_NEAR(predicted("membarrier_targets.toml", "intc.fabric.same_l3"), 20000.0, 400.0);
}

TEST(HostFit, with_both_microbenchmarks_each_cost_is_fitted_to_its_own_measurement) {
    probe::ProbeResults r = probe::testing::sample_results();
    r.membarrier_spinning = probe::MembarrierFigure{probe::summarize({17000, 18000, 19000}), 1.0, probe::Spread{}};
    probe::DontneedFigure alone;
    alone.cycle_ns = probe::summarize({2700, 2800, 2900});
    r.dontneed = {alone};
    const auto host = write_host(r, "both");
    const std::string summary = fit_host_machine(r, host, kExperiments);
    EXPECT_NE(summary.find("fitted intc.fabric.same_l3 (F)"), std::string::npos) << summary;
    EXPECT_NE(summary.find("fitted cpu.handle_mm_fault (F)"), std::string::npos) << summary;
    const hw::MachineSpec after = hw::load_machine(host.string());
    const auto predicted = [&](const std::string& targets, const std::string& key) {
        return predicted_on_fitted_host(host, targets, after.cost(key)->value);
    };
    EXPECT_NEAR(predicted("membarrier_targets.toml", "intc.fabric.same_l3"), 18000.0, 360.0);
    EXPECT_NEAR(predicted("fault_targets.toml", "cpu.handle_mm_fault"), 1e9 / 2800, 1e9 / 2800 * 0.02);
}

}  // namespace
}  // namespace ipisim::cli
