// The no-progress monitor (docs/checker.md, "No progress"): a run whose CPUs retire no work for
// longer than a bound of simulated time while some of them wait or spin (a livelock: CPUs
// polling lines nobody writes while the others idle) is stopped instead of simulating the rest
// of its window.
//
// Progress is any CPU finishing a computation as user or kernel code (Cpu::compute outside
// spins, idle and interrupt handlers: the compute_done hook). Every other computation (a polling
// spin's pause, an interrupt handler on an idle CPU) is where the monitor looks: past the bound,
// with some CPU waiting or spinning, it is a violation naming the simulated time, the last
// progress and what each CPU was doing (its activity, its wait and its kernel frames, as the
// stuck-wait report gives them). With no CPU waiting or spinning (a machine that slept, say a
// long msleep), nothing is stuck and the window starts again. A livelock that computes nothing
// at all (CPUs asleep on lines) leaves no event, which the deadlock monitor reports at the end.
#pragma once

#include <optional>
#include <vector>

#include "check/violation.h"
#include "check/waits.h"
#include "hw/cpu/profile.h"

namespace ipisim::check {

// 1 s: far above any legitimate stall (the stuck-wait bound is ~0.1 s on the toy machines).
inline constexpr sim::Picos kDefaultNoProgressBound = sim::Picos(1'000'000'000'000ULL);

class Progress {
public:
    explicit Progress(sim::Picos bound) : bound_(bound) {}

    void work_retired(sim::Picos now) { last_ = now; }
    // Nothing was stuck until `t` (no CPU waiting or spinning): the window starts again there.
    void restart(sim::Picos t) { last_ = t; }
    [[nodiscard]] sim::Picos bound() const { return bound_; }
    [[nodiscard]] bool overdue(sim::Picos now) const { return now - last_ >= bound_; }
    // At `now`, overdue: the violation if some CPU waits or spins (`activity[c]` is CPU c's
    // current activity); nullopt if none does.
    [[nodiscard]] std::optional<Violation> check(sim::Picos now, const Waits& waits,
                                                 const std::vector<hw::Activity>& activity) const;

private:
    sim::Picos bound_;
    sim::Picos last_;
};

}  // namespace ipisim::check
