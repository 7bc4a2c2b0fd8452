#include "sim/calendar_queue.h"

#include <algorithm>
#include <bit>

namespace ipisim::sim {

namespace {
constexpr size_t kMinBuckets = 64;
}

CalendarQueue::CalendarQueue() {
    resize(kMinBuckets);
}

void CalendarQueue::anchor(uint64_t time) {
    // On the only event, or on one earlier than the window (possible after a peek moved the
    // window ahead of the current time): everything else is later.
    cur_ = (time >> shift_) & mask_;
    cur_top_ = ((time >> shift_) + 1) << shift_;
}

void CalendarQueue::seek_slow() {
    const uint64_t width = uint64_t{1} << shift_;
    for (size_t n = 0; n <= mask_; ++n) {
        cur_ = (cur_ + 1) & mask_;
        cur_top_ += width;
        if (buckets_[cur_].head_time < cur_top_) {
            scan_steps_ += n + 1;
            return;
        }
    }
    scan_steps_ += mask_ + 1;
    // Nothing within a whole year: jump straight to the earliest event.
    size_t best = 0;
    for (size_t i = 1; i < buckets_.size(); ++i) {
        const Bucket& b = buckets_[i];
        if (b.head == kNil) continue;
        const Bucket& cur = buckets_[best];
        if (cur.head == kNil || before(nodes_[b.head].ev, nodes_[cur.head].ev)) best = i;
    }
    anchor(buckets_[best].head_time);
}

void CalendarQueue::end_window() {
    // Too many empty buckets scanned per pop: buckets too narrow; too many nodes walked per
    // insert: too wide. Either way re-estimate the width from the current events.
    const bool too_narrow = scan_steps_ > 4 * ops_;
    const bool too_wide = walk_steps_ > 4 * ops_;
    scan_steps_ = walk_steps_ = ops_ = 0;
    if (buckets_.size() > kMinBuckets && size_ < buckets_.size() / 4) {
        resize(buckets_.size() / 2);
    } else if ((too_narrow || too_wide) && size_ >= 2) {
        resize(buckets_.size());
    }
}

void CalendarQueue::resize(size_t nbuckets) {
    std::vector<uint32_t> all;
    all.reserve(size_);
    for (const Bucket& b : buckets_) {
        for (uint32_t n = b.head; n != kNil; n = nodes_[n].next) all.push_back(n);
    }
    std::sort(all.begin(), all.end(), [this](uint32_t a, uint32_t b) { return before(nodes_[a].ev, nodes_[b].ev); });

    // Width: about three times the mean spacing of the earliest events (Brown), ignoring
    // spacings far above the mean so that a few far-future timers do not stretch the buckets.
    if (all.size() >= 2) {
        const size_t n = std::min<size_t>(all.size(), 128);
        const uint64_t span = nodes_[all[n - 1]].ev.time - nodes_[all[0]].ev.time;
        const uint64_t mean = span / (n - 1);
        uint64_t sum = 0;
        size_t cnt = 0;
        for (size_t i = 1; i < n; ++i) {
            const uint64_t gap = nodes_[all[i]].ev.time - nodes_[all[i - 1]].ev.time;
            if (gap <= 2 * mean) {
                sum += gap;
                ++cnt;
            }
        }
        const uint64_t sep = cnt > 0 ? sum / cnt : mean;
        const uint64_t width = std::max<uint64_t>(3 * sep, 64);
        shift_ = static_cast<uint32_t>(std::bit_width(width) - 1);
    }

    buckets_.assign(nbuckets, Bucket{});
    mask_ = nbuckets - 1;
    // Latest first, pushing at the front, so every list ends up sorted.
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        const uint32_t n = *it;
        Bucket& b = buckets_[(nodes_[n].ev.time >> shift_) & mask_];
        nodes_[n].next = b.head;
        b.head = n;
        b.head_time = nodes_[n].ev.time;
    }
    if (!all.empty()) {
        anchor(nodes_[all.front()].ev.time);
    } else {
        cur_ = 0;
        cur_top_ = uint64_t{1} << shift_;
    }
}

}  // namespace ipisim::sim
