// Whether the host still places our CPUs as it did when they were probed. In a VM the
// hypervisor may move vCPUs between physical cores: on this project's 2-vCPU CI machine the
// cache-line transfer between CPUs 0 and 1 flips between ~27 ns (SMT siblings or one core's
// neighbours) and ~100 ns within seconds. host.toml describes the placement at probe time, so a
// measurement taken under another one compares the model with other hardware. `ipisim validate
// host` checks the line latency of the tasks' first pair before and after each multi-task cell
// and retries a cell measured under another placement (docs/probe.md).
#pragma once

#include <functional>
#include <string>

namespace ipisim::probe {

// A short CAS ping-pong between CPUs a and b (cacheline.h): the median one-way latency of 5
// samples of 2000 round trips (a few ms), after one warm-up sample.
double pair_latency_ns(int cpu_a, int cpu_b);

// The placement matches the probed one if both checks are within a factor of kPlacementTolerance
// of the probed latency (the two placements seen on a VM differ by ~4x; one placement's checks
// spread by a few percent).
inline constexpr double kPlacementTolerance = 1.5;
[[nodiscard]] bool same_placement(double probed_ns, double before_ns, double after_ns);

// One measurement's placement check: the line latency of CPUs a and b as probed, and just before
// and after the measurement's last attempt.
struct PlacementCheck {
    int cpu_a = 0;
    int cpu_b = 0;
    double probed_ns = 0;
    double before_ns = 0;
    double after_ns = 0;
    int attempts = 0;
    [[nodiscard]] bool matched() const { return same_placement(probed_ns, before_ns, after_ns); }
};

// Runs `measure` between two checks of (a, b), and again while they do not match `probed_ns`,
// `max_attempts` times at most; `before_retry` runs before each new attempt (to drop what the
// last one added, to say why).
PlacementCheck measure_at_placement(int cpu_a, int cpu_b, double probed_ns, int max_attempts,
                                    const std::function<void()>& measure,
                                    const std::function<void(const PlacementCheck&)>& before_retry);

// "1 attempt", "3 attempts".
[[nodiscard]] std::string attempts_text(int attempts);
// "27.5 / 27.9 ns (1 attempt)": the checks before / after and the attempts.
[[nodiscard]] std::string check_text(const PlacementCheck& c);

}  // namespace ipisim::probe
