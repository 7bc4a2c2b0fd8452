// The timed event queue: a calendar queue (R. Brown, CACM 1988). Buckets of width 2^shift ps
// cover one "year"; each bucket is a sorted intrusive list of pooled nodes, and the bucket array
// caches each list's earliest time, so dequeue is a scan of a dense array (usually one or two
// entries) and enqueue a short list walk. The bucket count follows the queue size and the width
// follows the event spacing (re-estimated when scans or list walks grow long). Ordering is
// exact: (time, priority, sequence), identical to a binary heap's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/event.h"

namespace ipisim::sim {

class CalendarQueue {
public:
    CalendarQueue();

    [[nodiscard]] bool empty() const { return size_ == 0; }
    [[nodiscard]] size_t size() const { return size_; }

    IPISIM_INLINE void push(const Event& e) {
        if (size_ == 0 || e.time < cur_top_ - (uint64_t{1} << shift_)) anchor(e.time);
        const uint32_t n = alloc();
        nodes_[n].ev = e;
        link(n);
        if (++size_ > 2 * buckets_.size()) resize(buckets_.size() * 2);
    }

    // Precondition: !empty().
    IPISIM_INLINE Event pop() {
        seek();
        return take();
    }

    // Pops the earliest event into *out if its time is <= limit. Precondition: !empty().
    IPISIM_INLINE bool pop_until(uint64_t limit, Event* out) {
        seek();
        if (buckets_[cur_].head_time > limit) return false;
        *out = take();
        return true;
    }

    // Earliest event's time; precondition: !empty().
    [[nodiscard]] uint64_t peek_time() {
        seek();
        return buckets_[cur_].head_time;
    }

private:
    static constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();
    static constexpr uint64_t kEmpty = std::numeric_limits<uint64_t>::max();

    struct Node {
        Event ev;
        uint32_t next;
    };
    struct Bucket {
        uint64_t head_time = kEmpty;  // time of the earliest event, kEmpty if none
        uint32_t head = kNil;
    };

    IPISIM_INLINE uint32_t alloc() {
        if (free_ != kNil) {
            const uint32_t n = free_;
            free_ = nodes_[n].next;
            return n;
        }
        nodes_.push_back(Node{});
        return static_cast<uint32_t>(nodes_.size() - 1);
    }

    // Inserts node n into its bucket's sorted list.
    IPISIM_INLINE void link(uint32_t n) {
        Bucket& b = buckets_[(nodes_[n].ev.time >> shift_) & mask_];
        const Event& e = nodes_[n].ev;
        if (b.head == kNil || before(e, nodes_[b.head].ev)) {
            nodes_[n].next = b.head;
            b.head = n;
            b.head_time = e.time;
            return;
        }
        uint32_t prev = b.head;
        uint32_t steps = 1;
        while (nodes_[prev].next != kNil && !before(e, nodes_[nodes_[prev].next].ev)) {
            prev = nodes_[prev].next;
            ++steps;
        }
        walk_steps_ += steps;
        nodes_[n].next = nodes_[prev].next;
        nodes_[prev].next = n;
    }

    // Positions cur_ at the bucket holding the earliest event.
    IPISIM_INLINE void seek() {
        if (buckets_[cur_].head_time < cur_top_) return;
        seek_slow();
    }

    IPISIM_INLINE Event take() {
        Bucket& b = buckets_[cur_];
        const uint32_t n = b.head;
        const Event ev = nodes_[n].ev;
        b.head = nodes_[n].next;
        b.head_time = b.head == kNil ? kEmpty : nodes_[b.head].ev.time;
        nodes_[n].next = free_;
        free_ = n;
        --size_;
        if (++ops_ >= kWindow) end_window();
        return ev;
    }

    void seek_slow();
    void anchor(uint64_t time);
    void end_window();
    void resize(size_t nbuckets);

    static constexpr uint64_t kWindow = 4096;

    std::vector<Bucket> buckets_;
    std::vector<Node> nodes_;
    uint32_t free_ = kNil;
    size_t mask_ = 0;
    uint32_t shift_ = 10;   // bucket width = 2^shift ps
    size_t cur_ = 0;        // bucket of the current window
    uint64_t cur_top_ = 0;  // exclusive end of the current window
    size_t size_ = 0;
    // Recalibration (Brown): measured over windows of pops, buckets scanned per pop and list
    // nodes walked per insert.
    uint64_t scan_steps_ = 0;
    uint64_t walk_steps_ = 0;
    uint64_t ops_ = 0;
};

// The engine's timed queue.
using EventQueue = CalendarQueue;

}  // namespace ipisim::sim
