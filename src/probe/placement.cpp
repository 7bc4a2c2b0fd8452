#include "probe/placement.h"

#include <fmt/format.h>

#include "probe/cacheline.h"
#include "probe/summary.h"

namespace ipisim::probe {

double pair_latency_ns(int cpu_a, int cpu_b) {
    const Effort check{5, 1, 1.0, 0};
    return summarize(cas_ping_pong_ns(cpu_a, cpu_b, 2000, check)).median;
}

bool same_placement(double probed_ns, double before_ns, double after_ns) {
    const auto near = [probed_ns](double v) {
        return v > 0 && v <= probed_ns * kPlacementTolerance && v * kPlacementTolerance >= probed_ns;
    };
    return probed_ns > 0 && near(before_ns) && near(after_ns);
}

PlacementCheck measure_at_placement(int cpu_a, int cpu_b, double probed_ns, int max_attempts,
                                    const std::function<void()>& measure,
                                    const std::function<void(const PlacementCheck&)>& before_retry) {
    PlacementCheck c{cpu_a, cpu_b, probed_ns};
    for (;;) {
        c.before_ns = pair_latency_ns(cpu_a, cpu_b);
        measure();
        c.after_ns = pair_latency_ns(cpu_a, cpu_b);
        ++c.attempts;
        if (c.matched() || c.attempts >= max_attempts) return c;
        before_retry(c);
    }
}

std::string attempts_text(int attempts) {
    return fmt::format("{} attempt{}", attempts, attempts == 1 ? "" : "s");
}

std::string check_text(const PlacementCheck& c) {
    return fmt::format("{:.1f} / {:.1f} ns ({})", c.before_ns, c.after_ns, attempts_text(c.attempts));
}

}  // namespace ipisim::probe
