#include "experiment/shard.h"

#include <fmt/format.h>

#include <charconv>

namespace ipisim::experiment {

namespace {

std::optional<size_t> number(const std::string& s) {
    size_t v = 0;
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, v);
    if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return v;
}

}  // namespace

std::string Shard::text() const {
    return fmt::format("{}/{}", index, count);
}

std::optional<Shard> parse_shard(const std::string& text, std::string* problem) {
    const size_t slash = text.find('/');
    const std::optional<size_t> i = slash == std::string::npos ? std::nullopt : number(text.substr(0, slash));
    const std::optional<size_t> n = slash == std::string::npos ? std::nullopt : number(text.substr(slash + 1));
    if (!i || !n) {
        *problem = fmt::format("expected i/N (shard i of N, counting from 0), got \"{}\"", text);
        return std::nullopt;
    }
    if (*n == 0 || *i >= *n) {
        *problem = fmt::format("shard {} of {} does not exist: i must be 0 to N-1", *i, *n);
        return std::nullopt;
    }
    return Shard{*i, *n};
}

std::vector<size_t> shard_points(size_t points, const std::optional<Shard>& shard) {
    std::vector<size_t> out;
    for (size_t k = 0; k < points; ++k) {
        if (!shard || shard->contains(k)) out.push_back(k);
    }
    return out;
}

}  // namespace ipisim::experiment
