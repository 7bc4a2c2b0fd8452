// Statistics: counters, histograms of durations, and time-weighted accounting of where a
// component's time goes (busy/idle, or per kernel function for profiles).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace ipisim::sim {

class Counter {
public:
    void add(uint64_t n = 1) { value_ += n; }
    [[nodiscard]] uint64_t value() const { return value_; }
    void reset() { value_ = 0; }

private:
    uint64_t value_ = 0;
};

// Log-linear histogram of picosecond values: 2^k ranges split into 16 linear sub-buckets,
// so quantiles are within ~6% and recording is O(1) without allocation.
class Histogram {
public:
    Histogram();
    void record(Picos v);
    [[nodiscard]] uint64_t count() const { return count_; }
    [[nodiscard]] Picos min() const { return Picos(count_ ? min_ : 0); }
    [[nodiscard]] Picos max() const { return Picos(max_); }
    [[nodiscard]] double mean_ps() const {
        return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
    }
    // q in [0, 1]; returns the upper edge of the bucket holding the q-quantile (exact at min/max).
    [[nodiscard]] Picos quantile(double q) const;
    void reset();

private:
    static constexpr int kSub = 16;
    static size_t bucket_of(uint64_t v);
    static uint64_t upper_edge(size_t b);
    std::vector<uint64_t> buckets_;
    uint64_t count_ = 0;
    uint64_t min_ = UINT64_MAX;
    uint64_t max_ = 0;
    unsigned __int128 sum_ = 0;
};

// Time-weighted accounting: the component is in exactly one category at a time; switch()
// charges the elapsed time to the category it leaves.
class TimeAccount {
public:
    explicit TimeAccount(std::vector<std::string> categories, size_t initial = 0);
    void switch_to(size_t category, Picos now);
    // Charges the time up to `now` without switching (call before reading).
    void settle(Picos now);
    [[nodiscard]] size_t current() const { return current_; }
    [[nodiscard]] Picos time_in(size_t category) const { return Picos(time_[category]); }
    [[nodiscard]] Picos total() const;
    [[nodiscard]] const std::vector<std::string>& categories() const { return names_; }
    void reset(Picos now);

private:
    std::vector<std::string> names_;
    std::vector<uint64_t> time_;
    size_t current_;
    uint64_t since_ = 0;
};

}  // namespace ipisim::sim
