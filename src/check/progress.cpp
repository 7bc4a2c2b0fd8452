#include "check/progress.h"

#include <fmt/format.h>

namespace ipisim::check {

std::optional<Violation> Progress::check(sim::Picos now, const Waits& waits,
                                         const std::vector<hw::Activity>& activity) const {
    bool stuck = false;
    for (hw::CpuId c = 0; c < activity.size(); ++c) {
        stuck = stuck || waits.current_wait(c) != nullptr || activity[c] == hw::Activity::spin;
    }
    if (!stuck) return std::nullopt;
    std::string cpus;
    for (hw::CpuId c = 0; c < activity.size(); ++c) {
        cpus += fmt::format(" cpu{} ({}): {}; frames: {}.", c, hw::to_string(activity[c]), waits.describe_wait(c, now),
                            waits.frames(c));
    }
    hw::CpuId first = 0;  // the first waiting or spinning CPU
    for (hw::CpuId c = 0; c < activity.size(); ++c) {
        if (waits.current_wait(c) != nullptr || activity[c] == hw::Activity::spin) {
            first = c;
            break;
        }
    }
    return Violation{
        .kind = ViolationKind::no_progress,
        .cpu = first,
        .time = now,
        .diagnosis = fmt::format("no progress: no CPU retired user or kernel work from {} to {} (the bound is {}), "
                                 "while CPUs waited or spun (a livelock); the run stops. The CPUs:{}",
                                 sim::to_string(last_), sim::to_string(now), sim::to_string(bound_), cpus),
    };
}

}  // namespace ipisim::check
