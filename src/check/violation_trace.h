// The trace of a violation (docs/checker.md, "The violation trace"): the failing run again, seed
// for seed, with a Chrome / Perfetto trace recorder (report/trace.h) observing it, clipped to the
// time before the first violation, with the violation as an instant on the violating CPU's
// track (category "check", its kind and diagnosis in args). Observers change nothing simulated,
// so the rerun must end with the same fingerprint as the run that failed; if it does not, the
// trace would show another run, and std::logic_error says so.
//
//   const nlohmann::ordered_json t = check::violation_trace(failed_spec, result);
//   write_text_file(stem + ".trace.json", t.dump());
#pragma once

#include <nlohmann/json.hpp>

#include "check/check_stress.h"
#include "sim/time.h"

namespace ipisim::check {

// The default window: this long before the first violation, up to just after it.
inline constexpr sim::Picos kViolationTraceWindow = sim::Picos(500'000'000);  // 500 us

// `failed` is the failing run's spec (its seed), `r` its result (violations not empty).
[[nodiscard]] nlohmann::ordered_json violation_trace(const StressSpec& failed, const StressResult& r,
                                                     sim::Picos window = kViolationTraceWindow);

}  // namespace ipisim::check
