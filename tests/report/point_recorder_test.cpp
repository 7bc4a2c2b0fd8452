// PointRecorder (report/point_recorder.h): latency histograms of every point, a trace of the
// selected one, through the runner; and the --trace-window syntax.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config/error.h"
#include "experiment/runner.h"
#include "report/point_recorder.h"
#include "report/trace_event_validator.h"
#include "support/kernel_world.h"
#include "support/paths.h"
#include "support/scratch_path.h"

using namespace ipisim;
using namespace ipisim::sim::literals;

namespace {

std::filesystem::path scratch(const std::string& name) {
    auto p = ::ipisim::test::scratch_path(("ipisim_point_recorder_" + name));
    std::filesystem::remove_all(p);
    return p;
}

nlohmann::json read_json(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

TEST(PointRecorder, a_seed000_point_traced_from_2ms_to_2_2ms_is_valid_trace_event_json) {
    const auto dir = scratch("seed000");
    const experiment::Experiment e = experiment::load_experiment(
        ipisim::test::source_path("experiments/seed000_rar.toml"),
        {"sweep.threads=[20, 40]", R"(sweep.kernel.tlb_flush=["rar-optimized"])", "params.measure=200 us"});
    report::TraceOptions trace{(dir / "trace.json").string(), report::parse_trace_window("2ms..2.2ms"), 1};
    experiment::RunOptions options;
    options.machines_dir = ipisim::test::source_path("machines");
    options.trace = &trace;
    const report::ExperimentResults r = experiment::run_experiment(e, options);
    ASSERT_EQ(r.rows.size(), 2U);
    const nlohmann::json doc = read_json(trace.file);
    EXPECT_EQ(test::validate_trace_events(doc, 2000.0, 2200.0), std::vector<std::string>{});
    EXPECT_EQ(doc["otherData"]["point"], 1);
    EXPECT_EQ(doc["otherData"]["params"]["threads"], 40);
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
    // Every point has latency histograms, the untraced one too.
    for (const auto& row : r.rows) {
        EXPECT_TRUE(row.latency.contains("flush_tlb_mm_range")) << row.latency.dump();
        EXPECT_TRUE(row.latency.contains("wait_for_action_done")) << row.latency.dump();
        EXPECT_TRUE(row.latency.contains("rar_delivery")) << row.latency.dump();
    }
    std::filesystem::remove_all(dir);
}

TEST(PointRecorder, two_sync_calls_on_toy2_give_exact_latency_histograms_and_no_trace) {
    report::PointRecorder rec(0, nullptr);
    EXPECT_FALSE(rec.tracing());
    EXPECT_EQ(hw::tracer(), nullptr);  // no timeline hooks without a trace
    {
        test::KernelWorld w("toy2");
        w.plat->cpu(1).set_idle_state(1);
        w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> {
            for (int i = 0; i < 2; ++i) {
                auto empty = [](hw::Cpu& c) -> sim::Task<> { co_await c.compute(5_ns); };
                co_await w.k->smp().smp_call_function_single(cpu, 1, empty, true);
                co_await cpu.compute(10_us);
            }
            w.eng.stop();
        });
        w.k->boot();
        w.eng.run();
    }
    // Each IPI crosses the fabric in 500 ns; each call's wait on the locked CSD lasts from the
    // IPI's send to the unlock seen by the spinner: 2040 ns (tests/kernel/smp_test.cpp: 312 to
    // 2352 ns after the call's start). csd_lock()'s check of the free CSD is not counted.
    const nlohmann::ordered_json expected = {
        {"csd_lock_wait",
         {{"count", 2}, {"p50_ns", 2040.0}, {"p90_ns", 2040.0}, {"p99_ns", 2040.0}, {"max_ns", 2040.0}}},
        {"ipi_delivery", {{"count", 2}, {"p50_ns", 500.0}, {"p90_ns", 500.0}, {"p99_ns", 500.0}, {"max_ns", 500.0}}}};
    EXPECT_EQ(rec.latency(), expected);
}

TEST(PointRecorder, only_the_selected_point_is_traced_and_the_observer_goes_away_after_it) {
    report::TraceOptions trace{"unused.json", {}, 3};
    {
        report::PointRecorder other(2, &trace);
        EXPECT_FALSE(other.tracing());
        EXPECT_EQ(hw::observer(), &other);
        EXPECT_TRUE(other.trace_json({}).is_null());
    }
    {
        report::PointRecorder traced(3, &trace);
        EXPECT_TRUE(traced.tracing());
        EXPECT_EQ(hw::tracer(), &traced);
    }
    EXPECT_EQ(hw::observer(), nullptr);
    EXPECT_EQ(hw::tracer(), nullptr);
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
