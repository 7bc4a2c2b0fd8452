// The interrupt router of each package (docs/mechanisms.md §3.5): on Intel Xeon the Ubox, "the
// intermediary for interrupt traffic, receiving interrupts from the system and dispatching
// interrupts to the appropriate core", one per socket. Every interrupt message a CPU of the
// package sends (IPIs, RAR signals) is routed by it, one at a time.
//
// Model: a FIFO server per package with a fixed occupancy R per message
// (IntcSpec.router_service). Every sender of a package is the same hop away from it, so the
// order of arrival is the order of sending, and a message handed over at t starts being routed
// at max(t, end of the previous one): reserve() returns the wait and books the occupancy.
// R = 0: no router (every wait is zero).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace ipisim::hw {

struct RouterStats {
    uint64_t messages = 0;  // messages routed (one per register write)
    uint64_t waits = 0;     // messages that found their router busy
    sim::Picos wait_time;   // total time spent waiting for a router
    sim::Picos busy;        // total occupancy, all packages
};

class InterruptRouter {
public:
    InterruptRouter(uint32_t packages, sim::Picos service);

    // A message of `package` arrives at `now`: how long it waits before being routed.
    sim::Picos reserve(uint32_t package, sim::Picos now);

    [[nodiscard]] sim::Picos service() const { return service_; }
    [[nodiscard]] bool enabled() const { return service_ > sim::Picos::zero(); }
    // When the router of `package` has finished every message handed to it so far.
    [[nodiscard]] sim::Picos free_at(uint32_t package) const { return free_.at(package); }
    [[nodiscard]] const RouterStats& stats() const { return stats_; }

private:
    sim::Picos service_;
    std::vector<sim::Picos> free_;  // per package
    RouterStats stats_;
};

}  // namespace ipisim::hw
