#include "sim/calendar_queue.h"

#include <algorithm>
#include <bit>

namespace ipisim::sim {

namespace {
constexpr size_t kMinBuckets = 64;
}

CalendarQueue::CalendarQueue() { resize(kMinBuckets); }

void CalendarQueue::insert(Bucket& b, const Event& e) {
    auto& v = b.events;
    if (b.head > 0 && b.head == v.size()) {
        v.clear();
        b.head = 0;
    }
    // Most inserts land at the end (later than everything in the bucket).
    size_t i = v.size();
    while (i > b.head && before(e, v[i - 1])) --i;
    shifts_ += v.size() - i;
    if (i == v.size()) {
        v.push_back(e);
    } else {
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(i), e);
    }
}

void CalendarQueue::push(const Event& e) {
    if (size_ == 0 || e.time < cur_top_ - (uint64_t{1} << shift_)) {
        // Re-anchor the window: on the only event, or on one earlier than the window (possible
        // after a peek moved the window ahead of the current time).
        cur_ = (e.time >> shift_) & mask_;
        cur_top_ = ((e.time >> shift_) + 1) << shift_;
    }
    insert(buckets_[(e.time >> shift_) & mask_], e);
    ++size_;
    if (size_ > 2 * buckets_.size()) resize(buckets_.size() * 2);
}

void CalendarQueue::seek() {
    const uint64_t width = uint64_t{1} << shift_;
    for (size_t n = 0; n <= mask_; ++n) {
        Bucket& b = buckets_[cur_];
        if (!b.empty() && b.events[b.head].time < cur_top_) {
            scan_steps_ += n;
            return;
        }
        cur_ = (cur_ + 1) & mask_;
        cur_top_ += width;
    }
    scan_steps_ += mask_ + 1;
    // Nothing within a whole year: jump straight to the earliest event.
    const Event* best = nullptr;
    for (const Bucket& b : buckets_) {
        if (!b.empty() && (best == nullptr || before(b.events[b.head], *best))) best = &b.events[b.head];
    }
    cur_ = (best->time >> shift_) & mask_;
    cur_top_ = ((best->time >> shift_) + 1) << shift_;
}

uint64_t CalendarQueue::peek_time() {
    seek();
    const Bucket& b = buckets_[cur_];
    return b.events[b.head].time;
}

Event CalendarQueue::pop() {
    seek();
    return take();
}

bool CalendarQueue::pop_until(uint64_t limit, Event* out) {
    seek();
    const Bucket& b = buckets_[cur_];
    if (b.events[b.head].time > limit) return false;
    *out = take();
    return true;
}

void CalendarQueue::account_and_maybe_recalibrate() {
    // Every 4096 operations: if pops scan too many empty buckets (width too small) or inserts
    // shift too many events (width too large), re-estimate the width from the current events.
    if (++ops_ < 4096) return;
    const bool too_narrow = scan_steps_ > 4 * ops_;
    const bool too_wide = shifts_ > 4 * ops_;
    scan_steps_ = shifts_ = ops_ = 0;
    if ((too_narrow || too_wide) && size_ >= 2) resize(buckets_.size());
}

Event CalendarQueue::take() {
    Bucket& b = buckets_[cur_];
    Event e = b.events[b.head++];
    if (b.empty()) {
        b.events.clear();
        b.head = 0;
    }
    --size_;
    if (buckets_.size() > kMinBuckets && size_ < buckets_.size() / 4) {
        resize(buckets_.size() / 2);
    } else {
        account_and_maybe_recalibrate();
    }
    return e;
}

void CalendarQueue::resize(size_t nbuckets) {
    std::vector<Event> all;
    all.reserve(size_);
    for (Bucket& b : buckets_) {
        all.insert(all.end(), b.events.begin() + b.head, b.events.end());
    }
    std::sort(all.begin(), all.end(), before);

    // Width: about three times the mean spacing of the earliest events (Brown), ignoring
    // spacings far above the mean so that a few far-future timers do not stretch the buckets.
    if (all.size() >= 2) {
        const size_t n = std::min<size_t>(all.size(), 128);
        const uint64_t span = all[n - 1].time - all[0].time;
        const uint64_t mean = span / (n - 1);
        uint64_t sum = 0;
        size_t cnt = 0;
        for (size_t i = 1; i < n; ++i) {
            uint64_t gap = all[i].time - all[i - 1].time;
            if (gap <= 2 * mean) {
                sum += gap;
                ++cnt;
            }
        }
        uint64_t sep = cnt > 0 ? sum / cnt : mean;
        uint64_t width = std::max<uint64_t>(3 * sep, 64);
        shift_ = static_cast<uint32_t>(std::bit_width(width) - 1);
    }

    buckets_.assign(nbuckets, Bucket{});
    mask_ = nbuckets - 1;
    size_ = all.size();
    for (const Event& e : all) buckets_[(e.time >> shift_) & mask_].events.push_back(e);  // sorted
    if (!all.empty()) {
        cur_ = (all.front().time >> shift_) & mask_;
        cur_top_ = ((all.front().time >> shift_) + 1) << shift_;
    } else {
        cur_ = 0;
        cur_top_ = uint64_t{1} << shift_;
    }
}

}  // namespace ipisim::sim
