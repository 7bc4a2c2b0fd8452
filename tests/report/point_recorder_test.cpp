// PointRecorder (report/point_recorder.h): latency histograms of every point, a trace of the
// selected one, through the runner; and the --trace-window syntax.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/experiment.h"
#include "cli/run_experiment.h"
#include "config/error.h"
#include "report/point_recorder.h"
#include "report/trace_event_validator.h"

using namespace ipisim;
using namespace ipisim::sim::literals;

namespace {

std::filesystem::path scratch(const std::string& name) {
    auto p = std::filesystem::temp_directory_path() / ("ipisim_point_recorder_" + name);
    std::filesystem::remove_all(p);
    return p;
}

nlohmann::json read_json(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

TEST(PointRecorder, a_seed000_point_traced_from_2ms_to_2_2ms_is_valid_trace_event_json) {
    const auto dir = scratch("seed000");
    const cli::Experiment e = cli::load_experiment(
        std::string(IPISIM_SOURCE_DIR) + "/experiments/seed000_rar.toml",
        {"sweep.threads=[60]", R"(sweep.flush=["ipi", "rar-optimized"])", "params.measure=200 us"});
    report::TraceOptions trace{(dir / "trace.json").string(), report::parse_trace_window("2ms..2.2ms"), 1};
    cli::RunOptions options;
    options.machines_dir = std::string(IPISIM_SOURCE_DIR) + "/machines";
    options.trace = &trace;
    const report::ExperimentResults r = cli::run_experiment(e, options);
    ASSERT_EQ(r.rows.size(), 2U);
    const nlohmann::json doc = read_json(trace.file);
    EXPECT_EQ(test::validate_trace_events(doc, 2000.0, 2200.0), std::vector<std::string>{});
    EXPECT_EQ(doc["otherData"]["point"], 1);
    EXPECT_EQ(doc["otherData"]["params"]["flush"], "rar-optimized");
    size_t flows = 0, rar = 0, flushes = 0;
    for (const auto& ev : doc["traceEvents"]) {
        flows += ev["ph"] == "s" ? 1 : 0;
        rar += ev["ph"] == "s" && ev["name"] == "RAR" ? 1 : 0;
        flushes += ev["ph"] == "i" && ev["name"] == "tlb_flush" ? 1 : 0;
    }
    EXPECT_GT(rar, 0U);
    EXPECT_GT(flushes, 0U);
    std::cout << "trace: " << std::filesystem::file_size(trace.file) << " bytes, " << doc["traceEvents"].size()
              << " events, " << flows << " flows (" << rar << " RAR), " << flushes << " TLB flushes\n";
    // Every point has latency histograms; the IPI point's flushes wait in csd_lock_wait.
    EXPECT_TRUE(r.rows[0].latency.contains("flush_tlb_mm_range"));
    EXPECT_TRUE(r.rows[0].latency.contains("csd_lock_wait"));
    EXPECT_TRUE(r.rows[1].latency.contains("wait_for_action_done"));
    std::filesystem::remove_all(dir);
}

TEST(PointRecorder, a_trace_window_is_two_durations_with_units) {
    const report::TraceWindow w = report::parse_trace_window("2ms..2.2ms");
    EXPECT_EQ(w.from, 2_ms);
    EXPECT_EQ(w.to, 2200_us);
    EXPECT_EQ(report::parse_trace_window("1.5 us..").to, sim::Picos::max());
    EXPECT_EQ(report::parse_trace_window("0 ns..3 ns").to, 3_ns);
}

TEST(PointRecorder, a_bad_trace_window_is_an_error_naming_the_flag) {
    for (const char* bad : {"2ms", "2..3", "3ms..2ms", "2ms..2ms", "x..1ms"}) {
        try {
            (void)report::parse_trace_window(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const config::ConfigError& err) {
            EXPECT_EQ(err.file(), "--trace-window") << bad;
            EXPECT_NE(std::string(err.what()).find("e.g. 2ms..2.2ms"), std::string::npos) << err.what();
        }
    }
}

}  // namespace
