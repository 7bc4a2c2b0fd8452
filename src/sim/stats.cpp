#include "sim/stats.h"

#include <algorithm>
#include <bit>

namespace ipisim::sim {

Histogram::Histogram() : buckets_(64 * kSub, 0) {}

size_t Histogram::bucket_of(uint64_t v) {
    if (v < kSub) return static_cast<size_t>(v);
    const int msb = std::bit_width(v) - 1;  // >= 4
    const int shift = msb - 4;
    const uint64_t sub = (v >> shift) & (kSub - 1);
    return static_cast<size_t>((msb - 3) * kSub) + static_cast<size_t>(sub);
}

uint64_t Histogram::upper_edge(size_t b) {
    if (b < kSub) return b;
    const size_t msb = b / kSub + 3;
    const uint64_t sub = b % kSub;
    const size_t shift = msb - 4;
    return ((uint64_t{kSub} + sub + 1) << shift) - 1;
}

void Histogram::record(Picos v) {
    const uint64_t x = v.count();
    ++buckets_[bucket_of(x)];
    ++count_;
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
    sum_ += x;
}

Picos Histogram::quantile(double q) const {
    if (count_ == 0) return Picos(0);
    if (q <= 0.0) return Picos(min_);
    if (q >= 1.0) return Picos(max_);
    const auto rank = static_cast<uint64_t>(q * static_cast<double>(count_ - 1)) + 1;
    uint64_t seen = 0;
    for (size_t b = 0; b < buckets_.size(); ++b) {
        seen += buckets_[b];
        if (seen >= rank) return Picos(std::clamp(upper_edge(b), min_, max_));
    }
    return Picos(max_);
}

void Histogram::reset() {
    std::fill(buckets_.begin(), buckets_.end(), 0);
    count_ = 0;
    min_ = UINT64_MAX;
    max_ = 0;
    sum_ = 0;
}

TimeAccount::TimeAccount(std::vector<std::string> categories, size_t initial)
    : names_(std::move(categories)), time_(names_.size(), 0), current_(initial) {}

void TimeAccount::settle(Picos now) {
    time_[current_] += now.count() - since_;
    since_ = now.count();
}

void TimeAccount::switch_to(size_t category, Picos now) {
    settle(now);
    current_ = category;
}

Picos TimeAccount::total() const {
    uint64_t t = 0;
    for (uint64_t x : time_) t += x;
    return Picos(t);
}

void TimeAccount::reset(Picos now) {
    std::fill(time_.begin(), time_.end(), 0);
    since_ = now.count();
}

}  // namespace ipisim::sim
