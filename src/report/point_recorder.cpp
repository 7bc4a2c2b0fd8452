#include "report/point_recorder.h"

#include "config/error.h"
#include "config/units.h"
#include "report/results_files.h"

namespace ipisim::report {

namespace {

[[noreturn]] void bad_window(std::string_view text, const std::string& why) {
    throw config::ConfigError("--trace-window", 0, std::string(text),
                              why + " (expected FROM..TO with units, e.g. 2ms..2.2ms)");
}

sim::Picos window_end(std::string_view text, std::string_view part) {
    std::string why;
    const auto t = config::parse_duration(part, &why);
    if (!t) bad_window(text, why);
    return *t;
}

}  // namespace

TraceWindow parse_trace_window(std::string_view text) {
    const size_t dots = text.find("..");
    if (dots == std::string_view::npos) bad_window(text, "no \"..\" between the two times");
    TraceWindow w;
    w.from = window_end(text, text.substr(0, dots));
    const std::string_view to = text.substr(dots + 2);
    if (!to.empty()) w.to = window_end(text, to);
    if (w.to <= w.from) bad_window(text, "the window ends before it starts");
    return w;
}

PointRecorder::PointRecorder(size_t point, const TraceOptions* trace)
    : point_(point),
      options_(trace != nullptr && trace->point == point ? trace : nullptr),
      trace_(options_ != nullptr ? std::make_unique<Trace>(options_->window) : nullptr),
      scope_(*this, options_ != nullptr) {}

PointRecorder::~PointRecorder() = default;

nlohmann::ordered_json PointRecorder::trace_json(const nlohmann::ordered_json& params) const {
    if (!trace_) return nullptr;
    nlohmann::ordered_json j = trace_->json();
    j["otherData"]["point"] = point_;
    j["otherData"]["params"] = params;
    return j;
}

void PointRecorder::write_trace(const nlohmann::ordered_json& params) const {
    if (!trace_) return;
    write_text_file(options_->file, trace_json(params).dump() + "\n");
}

void PointRecorder::machine_built(const sim::Engine& eng, const hw::MachineSpec& spec,
                                  const std::vector<hw::Cpu*>& cpus) {
    sent_at_.clear();
    if (trace_) trace_->machine_built(eng, spec, cpus);
}

void PointRecorder::message_sent(const hw::FabricEvent& e) {
    if (sent_at_.size() <= e.slot) sent_at_.resize(e.slot + 1);
    sent_at_[e.slot] = e.now;
    if (trace_) trace_->message_sent(e);
}

void PointRecorder::message_delivered(const hw::FabricEvent& e) {
    if (e.slot < sent_at_.size()) latency_.record(e.rar ? "rar_delivery" : "ipi_delivery", e.now - sent_at_[e.slot]);
    if (trace_) trace_->message_delivered(e);
}

void PointRecorder::latency(std::string_view op, sim::Picos duration) {
    latency_.record(op, duration);
}

void PointRecorder::profile_reset(const hw::CpuProfile& /*profile*/, sim::Picos /*now*/) {
    latency_.reset();  // the workload's measurement window starts (every CPU at the same time)
}

void PointRecorder::function_changed(const hw::CpuProfile& profile, uint32_t label, hw::Activity activity,
                                     sim::Picos now) {
    if (trace_) trace_->function_changed(profile, label, activity, now);
}

void PointRecorder::work_stolen(const hw::CpuProfile& profile, uint32_t label, sim::Picos duration, sim::Picos now) {
    if (trace_) trace_->work_stolen(profile, label, duration, now);
}

void PointRecorder::tlb_invalidated(hw::CpuId cpu, const hw::Invalidation& inv, size_t removed) {
    if (trace_) trace_->tlb_invalidated(cpu, inv, removed);
}

void PointRecorder::queue_changed(hw::CpuId cpu, std::string_view queue, size_t depth, sim::Picos now) {
    if (trace_) trace_->queue_changed(cpu, queue, depth, now);
}

}  // namespace ipisim::report
