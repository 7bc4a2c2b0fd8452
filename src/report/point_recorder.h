// What the runner records around one sweep point besides its metrics: the latency histograms
// (always; results.json's "latency" member) and, for the point the trace options select, a
// Chrome / Perfetto trace (report/trace.h). The recorder observes the simulation on the current
// thread from its construction to its destruction (hw/observer.h):
//
//   report::PointRecorder rec(point, options.trace);  // options.trace: nullptr, or what to trace
//   workload::RunResult r = workload.run(params, ctx);
//   row.latency = rec.latency();
//   rec.write_trace(row.params);                      // no-op unless this point is traced
//
// The CLI gives the options as `--trace FILE --trace-window 2ms..2.2ms --trace-point N`.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hw/observer.h"
#include "report/latency.h"
#include "report/trace.h"

namespace ipisim::report {

struct TraceOptions {
    std::string file;    // where the trace is written
    TraceWindow window;  // default: the whole run
    size_t point = 0;    // the sweep point traced, counted from 0 in sweep order
};

// "2ms..2.2ms", "1.5 us..3 us", "2ms.." (to the end of the run): durations with units, from
// strictly before to. Bad text is a config::ConfigError on key "--trace-window".
TraceWindow parse_trace_window(std::string_view text);

class PointRecorder : public hw::Observer {
public:
    PointRecorder(size_t point, const TraceOptions* trace);
    ~PointRecorder() override;
    PointRecorder(const PointRecorder&) = delete;
    PointRecorder& operator=(const PointRecorder&) = delete;

    [[nodiscard]] bool tracing() const { return trace_ != nullptr; }
    [[nodiscard]] nlohmann::ordered_json latency() const { return latency_.json(); }
    [[nodiscard]] const LatencyHistograms& histograms() const { return latency_; }
    // The trace document (otherData names the point and its params); null when not tracing.
    [[nodiscard]] nlohmann::ordered_json trace_json(const nlohmann::ordered_json& params) const;
    // Writes the trace file when this point is traced; std::runtime_error if it cannot.
    void write_trace(const nlohmann::ordered_json& params) const;

    void machine_built(const sim::Engine& eng, const hw::MachineSpec& spec, const std::vector<hw::Cpu*>& cpus) override;
    void message_sent(const hw::FabricEvent& e) override;
    void message_delivered(const hw::FabricEvent& e) override;
    void latency(std::string_view op, sim::Picos duration) override;
    void profile_reset(const hw::CpuProfile& profile, sim::Picos now) override;
    void function_changed(const hw::CpuProfile& profile, uint32_t label, hw::Activity activity,
                          sim::Picos now) override;
    void work_stolen(const hw::CpuProfile& profile, uint32_t label, sim::Picos duration, sim::Picos now) override;
    void tlb_invalidated(hw::CpuId cpu, const hw::Invalidation& inv, size_t removed) override;
    void queue_changed(hw::CpuId cpu, std::string_view queue, size_t depth, sim::Picos now) override;

private:
    size_t point_;
    const TraceOptions* options_;
    std::unique_ptr<Trace> trace_;
    LatencyHistograms latency_;
    std::vector<sim::Picos> sent_at_;  // by fabric slot
    hw::ObserverScope scope_;          // last: installed once everything else is ready
};

}  // namespace ipisim::report
