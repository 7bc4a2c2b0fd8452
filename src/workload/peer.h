// The partner CPU of a two-CPU microbenchmark named by its distance class from a given CPU
// (cache-line ping-pong, a single cross-call): the lowest-numbered CPU at that distance.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hw/topology.h"
#include "workload/workload.h"

namespace ipisim::workload {

// The distance classes a partner can be at (not `self`), by their machine-file names.
inline std::vector<std::pair<std::string, hw::DistanceClass>> distance_choices() {
    std::vector<std::pair<std::string, hw::DistanceClass>> out;
    for (hw::DistanceClass c : hw::kAllDistanceClasses) {
        if (c != hw::DistanceClass::self) out.emplace_back(std::string(hw::to_string(c)), c);
    }
    return out;
}

// The lowest-numbered CPU at distance `d` from `from`, if the machine has one.
inline std::optional<hw::CpuId> peer_at(const hw::Topology& t, hw::CpuId from, hw::DistanceClass d) {
    for (hw::CpuId c = 0; c < t.nr_cpus(); ++c) {
        if (t.distance(from, c) == d) return c;
    }
    return std::nullopt;
}

// A machine without a CPU at that distance is an error at `key`.
inline void check_peer(const PointSetup& s, hw::CpuId from, hw::DistanceClass d, const std::string& key) {
    if (!peer_at(s.machine.topology(), from, d)) {
        s.params.fail(key, fmt::format("machine {} has no CPU at distance {} from CPU {}", s.machine.name(),
                                       hw::to_string(d), from));
    }
}

}  // namespace ipisim::workload
