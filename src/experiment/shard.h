// --shard i/N: one deterministic share of a sweep. Point k belongs to shard k mod N, so every
// shard gets points from the whole sweep (cheap and costly ones alike) and the shards of one
// sweep together hold each point exactly once. `ipisim merge` (merge.h) combines them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ipisim::experiment {

struct Shard {
    size_t index = 0;  // i, 0 <= i < count
    size_t count = 1;  // N

    [[nodiscard]] bool contains(size_t point) const { return point % count == index; }
    [[nodiscard]] std::string text() const;  // "i/N"
    bool operator==(const Shard&) const = default;
};

// "i/N" with 0 <= i < N; otherwise a message saying what is wrong (for the --shard option).
std::optional<Shard> parse_shard(const std::string& text, std::string* problem);

// The points of `points` a shard runs (every point without one), in order.
std::vector<size_t> shard_points(size_t points, const std::optional<Shard>& shard);

}  // namespace ipisim::experiment
