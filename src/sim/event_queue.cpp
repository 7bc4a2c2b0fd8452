#include "sim/event_queue.h"

namespace ipisim::sim {

namespace {
constexpr uint32_t kMinBucketBits = 6;   // 64 buckets: one bitmap word
constexpr uint32_t kMaxBucketBits = 20;  // 1 Mi buckets
constexpr uint32_t kMaxShift = 40;       // ~1.1 s buckets; the window stays below 2^61 ps

uint64_t saturating_add(uint64_t a, uint64_t b) {
    const uint64_t s = a + b;
    return s < a ? std::numeric_limits<uint64_t>::max() : s;
}
}  // namespace

EventQueue::EventQueue() {
    rebuild(kMinBucketBits, shift_);
}

bool EventQueue::link_inside(Bucket& b, const Event& e) {
    // head < e < tail: walk to the last node not after e.
    uint32_t prev = b.head;
    uint32_t steps = 1;
    while (!before(e, nodes_[nodes_[prev].next].ev)) {
        prev = nodes_[prev].next;
        if (++steps > kMaxWalk) {
            walk_steps_ += steps;
            return false;
        }
    }
    walk_steps_ += steps;
    const uint32_t n = alloc(e, nodes_[prev].next);
    nodes_[prev].next = n;
    return true;
}

void EventQueue::seek() {
    // The first set bit at or after cur_, circularly; the wheel is not empty.
    const size_t words = bits_.size();
    size_t w = cur_ >> 6;
    uint64_t bits = bits_[w] & (~uint64_t{0} << (cur_ & 63));
    while (bits == 0) {
        w = (w + 1) & (words - 1);
        bits = bits_[w];
    }
    const size_t idx = (w << 6) | static_cast<size_t>(std::countr_zero(bits));
    base_ += static_cast<uint64_t>((idx - cur_) & mask_) << shift_;
    cur_ = idx;
    limit_ = saturating_add(base_, span());
}

void EventQueue::anchor(uint64_t time) {
    // Precondition: the wheel is empty.
    base_ = (time >> shift_) << shift_;
    cur_ = (time >> shift_) & mask_;
    limit_ = saturating_add(base_, span());
}

void EventQueue::end_window() {
    // Lists too long: more, narrower buckets over the same window while there are events for
    // them, else a narrower window. Many events leaving from the heap: a wider window, unless
    // that would make the lists too long (hysteresis; events that are far whatever the width,
    // like 10 ms sleeps beside ns deliveries, are few among the pops). Few wheel events for the
    // buckets: fewer, wider buckets over the same window.
    const bool too_wide = walk_steps_ > kWindow;
    const bool too_narrow = heap_pops_ > kWindow / 8 && walk_steps_ < kWindow / 4;
    ops_ = walk_steps_ = heap_pops_ = 0;
    if (too_wide && shift_ > 0) {
        if (wheel_ > bucket_count() / 2 && bucket_bits_ < kMaxBucketBits) {
            rebuild(bucket_bits_ + 1, shift_ - 1);
        } else {
            rebuild(bucket_bits_, shift_ - 1);
        }
    } else if (too_narrow && shift_ < kMaxShift) {
        rebuild(bucket_bits_, shift_ + 1);
    } else if (bucket_bits_ > kMinBucketBits && wheel_ < bucket_count() / 8 && shift_ < kMaxShift) {
        rebuild(bucket_bits_ - 1, shift_ + 1);
    }
}

void EventQueue::grow() {
    // More than one event per bucket: twice the buckets, half as wide (same window).
    if (bucket_bits_ < kMaxBucketBits) rebuild(bucket_bits_ + 1, shift_ > 0 ? shift_ - 1 : 0);
}

void EventQueue::rebuild(uint32_t bucket_bits, uint32_t shift) {
    // The buckets from cur_ on, circularly, hold the wheel's events in order: re-linked in that
    // order, each one appends to its bucket.
    std::vector<Event> events;
    events.reserve(wheel_);
    for (size_t k = 0; k < buckets_.size(); ++k) {
        const Bucket& b = buckets_[(cur_ + k) & mask_];
        for (uint32_t n = b.head; n != kNil; n = nodes_[n].next) events.push_back(nodes_[n].ev);
    }
    const uint64_t start = base_;  // <= every wheel event
    nodes_.clear();
    free_ = kNil;
    bucket_bits_ = bucket_bits;
    shift_ = shift;
    mask_ = (size_t{1} << bucket_bits) - 1;
    buckets_.assign(mask_ + 1, Bucket{});
    bits_.assign((mask_ + 1) / 64, 0);
    wheel_ = 0;
    size_ -= events.size();
    anchor(start);
    for (const Event& e : events) push(e);
    migrate();
}

void EventQueue::migrate() {
    while (!heap_.empty()) {
        const Event e = heap_.top();
        if (e.time < base_ || e.time >= limit_) return;
        heap_.pop();
        if (!link(e)) {  // a crowded bucket: it stays in the heap
            heap_.push(e);
            return;
        }
    }
}

}  // namespace ipisim::sim
