#include "check/violation_trace.h"

#include <fmt/format.h>

#include <stdexcept>

#include "report/trace.h"

namespace ipisim::check {

nlohmann::ordered_json violation_trace(const StressSpec& failed, const StressResult& r, sim::Picos window) {
    if (r.violations.empty()) throw std::invalid_argument("violation_trace: the run has no violation");
    const Violation& v = r.violations.front();
    const sim::Picos from = v.time > window ? v.time - window : sim::Picos::zero();
    // Up to just after the violation: the slices that end at it are closed there.
    report::Trace trace({from, v.time + sim::Picos(1'000)});
    StressSpec spec = failed;
    spec.observer = &trace;
    const StressResult again = run_check_stress(spec);
    if (again.fingerprint != r.fingerprint) {
        throw std::logic_error(
            fmt::format("violation trace: the traced rerun of seed {} ended with fingerprint {:#x}, "
                        "the failing run with {:#x}",
                        failed.seed, again.fingerprint, r.fingerprint));
    }
    nlohmann::ordered_json j = trace.json();
    nlohmann::ordered_json mark;
    mark["name"] = fmt::format("violation: {}", to_string(v.kind));
    mark["cat"] = "check";
    mark["ph"] = "i";
    mark["ts"] = static_cast<double>(v.time.count()) / 1e6;
    mark["pid"] = 1;  // the one machine
    mark["tid"] = v.cpu;
    mark["s"] = "t";
    mark["args"] = {{"kind", to_string(v.kind)}, {"cpu", v.cpu}, {"diagnosis", v.diagnosis}};
    j["traceEvents"].push_back(std::move(mark));
    j["otherData"]["protocol"] = failed.protocol;
    j["otherData"]["machine"] = failed.machine.name;
    j["otherData"]["seed"] = failed.seed;
    return j;
}

}  // namespace ipisim::check
