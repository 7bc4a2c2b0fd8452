// Test support: the reference for waits that end in place (sim::Engine::advance_inline). A run
// whose one process waits the given times, each as a dispatched event (a timeout on a signal
// nothing notifies, which never ends in place); a run of the same waits that ended in place
// must have its fingerprint.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine.h"
#include "sim/signal.h"

namespace ipisim::test {

struct TimedWaitsRun {
    uint64_t fingerprint = 0;
    uint64_t events_dispatched = 0;
};

inline TimedWaitsRun run_timed_waits(const std::vector<sim::Picos>& waits) {
    sim::Engine eng;
    auto body = [&waits]() -> sim::Proc {
        sim::Signal never;
        for (const sim::Picos w : waits) co_await never.wait_for(w);
    };
    eng.spawn("cpu0", body());
    eng.run();
    return {eng.fingerprint(), eng.events_dispatched()};
}

}  // namespace ipisim::test
