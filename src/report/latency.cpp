#include "report/latency.h"

namespace ipisim::report {

void LatencyHistograms::record(std::string_view op, sim::Picos duration) {
    auto it = histograms_.find(op);
    if (it == histograms_.end()) it = histograms_.emplace(std::string(op), sim::Histogram()).first;
    it->second.record(duration);
}

void LatencyHistograms::reset() {
    for (auto& [name, h] : histograms_) h.reset();
}

const sim::Histogram* LatencyHistograms::find(std::string_view op) const {
    auto it = histograms_.find(op);
    return it == histograms_.end() ? nullptr : &it->second;
}

nlohmann::ordered_json LatencyHistograms::json() const {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [name, h] : histograms_) {
        if (h.count() == 0) continue;
        out[name] = {{"count", h.count()},
                     {"p50_ns", h.quantile(0.50).ns()},
                     {"p90_ns", h.quantile(0.90).ns()},
                     {"p99_ns", h.quantile(0.99).ns()},
                     {"max_ns", h.max().ns()}};
    }
    return out;
}

}  // namespace ipisim::report
