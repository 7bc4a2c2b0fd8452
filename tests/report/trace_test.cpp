// Chrome / Perfetto traces (report/trace.h): one IPI on toy2 traced exactly, the window, and
// the trace-event validator itself.
//
// The scenario (as in tests/kernel/smp_test.cpp): CPU 0 makes two synchronous
// smp_call_function_single() calls to CPU 1, which idles in C1 (1 us exit), 10 us apart. The
// second call starts at 12.551 us (the first, cold one took 2.551 us, then 10 us of compute);
// from its start (warm lines): the message leaves at +312 ns, is delivered at +812 (fabric
// 500 ns), CPU 1 enters the handler at +1812 (C1 exit), runs IRQ entry + EOI (250 ns) and the
// queue flush, unlocks the CSD at +2302, and CPU 0's csd_lock_wait ends at +2352.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/platform.h"
#include "kernel/costs.h"
#include "kernel/kernel.h"
#include "report/trace.h"
#include "report/trace_event_validator.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using sim::Picos;

namespace {

// Runs the scenario with `observer` installed (timeline level); returns the calls' start times.
std::vector<Picos> two_calls_on_toy2(hw::Observer& observer) {
    hw::ObserverScope scope(observer, /*timeline=*/true);
    test::KernelWorld w("toy2");
    w.plat->cpu(1).set_idle_state(1);
    std::vector<Picos> starts;
    w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> {
        for (int i = 0; i < 2; ++i) {
            starts.push_back(w.eng.now());
            auto empty = [](hw::Cpu& c) -> sim::Task<> { co_await c.compute_cycles(kernel::costs::empty_function); };
            co_await w.k->smp().smp_call_function_single(cpu, 1, empty, true);
            co_await cpu.compute(10_us);
        }
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    return starts;
}

std::vector<std::string> lines(const nlohmann::ordered_json& doc) {
    std::vector<std::string> out;
    for (const auto& e : doc["traceEvents"]) out.push_back(e.dump());
    return out;
}

TEST(Trace, one_ipi_on_toy2_is_traced_exactly_in_its_window) {
    report::Trace trace({12_us, 16_us});
    const std::vector<Picos> starts = two_calls_on_toy2(trace);
    ASSERT_EQ(starts.size(), 2U);
    ASSERT_EQ(starts[1], 12551_ns);
    const std::vector<std::string> expected = {
        R"j({"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"toy2 (2 CPUs)"}})j",
        R"j({"name":"thread_name","ph":"M","pid":1,"tid":0,"args":{"name":"cpu0"}})j",
        R"j({"name":"thread_sort_index","ph":"M","pid":1,"tid":0,"args":{"sort_index":0}})j",
        R"j({"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"cpu1"}})j",
        R"j({"name":"thread_sort_index","ph":"M","pid":1,"tid":1,"args":{"sort_index":2}})j",
        // Slices open at 12 us are clipped to the window; counters start with their value.
        R"j({"name":"(none)","cat":"idle","ph":"X","ts":12.0,"dur":0.551,"pid":1,"tid":0})j",
        R"j({"name":"cpuidle","cat":"idle","ph":"X","ts":12.0,"dur":2.363,"pid":1,"tid":1})j",
        R"j({"name":"call_single_queue[1]","cat":"counter","ph":"C","ts":12.0,"pid":1,"args":{"depth":0}})j",
        R"j({"name":"fabric messages in flight","cat":"counter","ph":"C","ts":12.0,"pid":1,"args":{"messages":0}})j",
        // +0: the call; +161 llist_add puts the CSD on CPU 1's queue; +162 the IPI is sent.
        R"j({"name":"smp_call_function_single","cat":"kernel","ph":"X","ts":12.551,"dur":0.162,"pid":1,"tid":0})j",
        R"j({"name":"call_single_queue[1]","cat":"counter","ph":"C","ts":12.712,"pid":1,"args":{"depth":1}})j",
        R"j({"name":"x2apic_send_IPI","cat":"kernel","ph":"X","ts":12.713,"dur":0.15,"pid":1,"tid":0})j",
        // +312: the message enters the fabric; the sender spins in csd_lock_wait until +2352.
        R"j({"name":"csd_lock_wait","cat":"spin","ph":"X","ts":12.863,"dur":2.04,"pid":1,"tid":0})j",
        R"j({"name":"fabric messages in flight","cat":"counter","ph":"C","ts":12.863,"pid":1,"args":{"messages":1}})j",
        R"j({"name":"IPI","cat":"ipi","ph":"s","ts":12.863,"pid":1,"tid":0,"id":1,"args":{"vector":"0xfb","target":1}})j",
        // +812: delivered; the arrow binds to CPU 1's next slice, the handler after the C1 exit.
        R"j({"name":"IPI","cat":"ipi","ph":"f","ts":13.363,"pid":1,"tid":1,"id":1,"args":{"vector":"0xfb","sender":0}})j",
        R"j({"name":"fabric messages in flight","cat":"counter","ph":"C","ts":13.363,"pid":1,"args":{"messages":0}})j",
        R"j({"name":"sysvec_call_function_single","cat":"irq","ph":"X","ts":14.363,"dur":0.25,"pid":1,"tid":1})j",
        R"j({"name":"__flush_smp_call_function_queue","cat":"irq","ph":"X","ts":14.613,"dur":0.24,"pid":1,"tid":1})j",
        R"j({"name":"call_single_queue[1]","cat":"counter","ph":"C","ts":14.663,"pid":1,"args":{"depth":0}})j",
        R"j({"name":"sysvec_call_function_single","cat":"irq","ph":"X","ts":14.853,"dur":0.1,"pid":1,"tid":1})j",
        R"j({"name":"(none)","cat":"idle","ph":"X","ts":14.903,"dur":1.097,"pid":1,"tid":0})j",
        R"j({"name":"(none)","cat":"idle","ph":"X","ts":14.953,"dur":0.151,"pid":1,"tid":1})j",
        R"j({"name":"cpuidle","cat":"idle","ph":"X","ts":15.104,"dur":0.896,"pid":1,"tid":1})j",
    };
    const nlohmann::ordered_json doc = trace.json();
    EXPECT_EQ(lines(doc), expected);
    EXPECT_EQ(doc["displayTimeUnit"], "ns");
    EXPECT_EQ(test::validate_trace_events(doc, 12.0, 16.0), std::vector<std::string>{});
}

TEST(Trace, the_whole_run_is_valid_trace_event_json_with_one_flow_per_ipi) {
    report::Trace trace;
    two_calls_on_toy2(trace);
    const nlohmann::ordered_json doc = trace.json();
    EXPECT_EQ(test::validate_trace_events(doc, 0.0, 24.903), std::vector<std::string>{});
    int starts = 0;
    for (const auto& e : doc["traceEvents"]) starts += e["ph"] == "s" ? 1 : 0;
    EXPECT_EQ(starts, 2);
    EXPECT_EQ(doc["otherData"]["window_to_us"], 24.903);  // the last event of the run
}

TEST(Trace, a_flow_delivered_after_the_window_is_left_out_with_its_start) {
    report::Trace trace({12600_ns, 13_us});  // the send (12.863) inside, the delivery (13.363) not
    two_calls_on_toy2(trace);
    const nlohmann::ordered_json doc = trace.json();
    for (const auto& e : doc["traceEvents"]) EXPECT_NE(e["ph"], "s") << e.dump();
    EXPECT_EQ(test::validate_trace_events(doc, 12.6, 13.0), std::vector<std::string>{});
}

// --- the validator must be able to fail ---

nlohmann::json doc_of(std::vector<nlohmann::json> events) {
    nlohmann::json d;
    d["traceEvents"] = events;
    return d;
}

nlohmann::json named(int tid) {
    return {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", "t"}}}};
}

nlohmann::json slice(double ts, double dur, int tid = 0) {
    return {{"name", "f"}, {"cat", "kernel"}, {"ph", "X"}, {"ts", ts}, {"dur", dur}, {"pid", 1}, {"tid", tid}};
}

nlohmann::json flow(const char* ph, double ts, int id, int tid = 0) {
    return {{"name", "IPI"}, {"cat", "ipi"}, {"ph", ph}, {"ts", ts}, {"id", id}, {"pid", 1}, {"tid", tid}};
}

TEST(TraceValidator, accepts_nested_slices_and_a_paired_flow) {
    const auto d = doc_of({named(0), named(1), slice(1, 5), slice(2, 1), flow("s", 2.5, 7), flow("f", 3, 7, 1)});
    EXPECT_EQ(test::validate_trace_events(d, 0, 10), std::vector<std::string>{});
}

TEST(TraceValidator, rejects_partly_overlapping_slices) {
    EXPECT_EQ(test::validate_trace_events(doc_of({named(0), slice(1, 5), slice(4, 3)}), 0, 10).size(), 1U);
}

TEST(TraceValidator, rejects_time_going_back_on_a_track) {
    EXPECT_EQ(test::validate_trace_events(doc_of({named(0), slice(5, 1), slice(1, 1)}), 0, 10).size(), 1U);
}

TEST(TraceValidator, rejects_a_flow_without_its_end_and_one_ending_before_it_starts) {
    EXPECT_EQ(test::validate_trace_events(doc_of({named(0), flow("s", 1, 1)}), 0, 10).size(), 1U);
    EXPECT_EQ(
        test::validate_trace_events(doc_of({named(0), named(1), flow("s", 2, 1), flow("f", 1, 1, 1)}), 0, 10).size(),
        1U);
}

TEST(TraceValidator, rejects_timestamps_that_are_not_microseconds_of_the_window) {
    // 2 ms written in ns instead of us.
    EXPECT_EQ(test::validate_trace_events(doc_of({named(0), slice(2e6, 1)}), 2000, 2200).size(), 1U);
}

TEST(TraceValidator, rejects_missing_fields_unknown_phases_and_unnamed_tracks) {
    nlohmann::json no_dur = slice(1, 1);
    no_dur.erase("dur");
    nlohmann::json no_tid = slice(1, 1);
    no_tid.erase("tid");
    nlohmann::json counter = {{"name", "q"}, {"ph", "C"}, {"ts", 1}, {"pid", 1}, {"args", {{"depth", "x"}}}};
    nlohmann::json weird = slice(1, 1);
    weird["ph"] = "Z";
    const auto problems = test::validate_trace_events(doc_of({no_dur, no_tid, counter, weird, slice(3, 1, 5)}), 0, 10);
    EXPECT_EQ(problems.size(), 5U) << nlohmann::json(problems).dump(1);
    EXPECT_EQ(test::validate_trace_events(nlohmann::json::array(), 0, 1).size(), 1U);
}

}  // namespace
