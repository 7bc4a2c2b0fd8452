#include "check/perturbation.h"

namespace ipisim::check {

sim::Picos SeededPerturbation::perturb(sim::Picos t) {
    uint64_t extra = 0;
    if (spec_.jitter_percent != 0) extra += rng_.uniform(0, t.count() * spec_.jitter_percent / 100);
    if (spec_.delay_per_mille != 0 && rng_.uniform(0, 999) < spec_.delay_per_mille) {
        extra += rng_.uniform(0, spec_.max_delay.count());
    }
    return t + sim::Picos(extra);
}

}  // namespace ipisim::check
