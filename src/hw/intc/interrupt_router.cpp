#include "hw/intc/interrupt_router.h"

#include <algorithm>

namespace ipisim::hw {

using sim::Picos;

InterruptRouter::InterruptRouter(uint32_t packages, Picos service)
    : service_(service), free_(packages, Picos::zero()) {}

Picos InterruptRouter::reserve(uint32_t package, Picos now) {
    if (!enabled()) return Picos::zero();
    Picos& free = free_.at(package);
    const Picos start = std::max(now, free);
    free = start + service_;
    ++stats_.messages;
    stats_.busy += service_;
    const Picos wait = start - now;
    if (wait > Picos::zero()) {
        ++stats_.waits;
        stats_.wait_time += wait;
    }
    return wait;
}

}  // namespace ipisim::hw
