#include "probe/placement.h"

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

}  // namespace ipisim::probe
