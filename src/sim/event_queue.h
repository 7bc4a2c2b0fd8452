// The timed event queue: a timing wheel for the near future beside a 4-ary heap for the rest.
//
// The wheel is W buckets of width 2^shift ps covering the window [base, base + W * 2^shift),
// which starts at the bucket of the earliest wheel event and slides forward as events leave.
// Each bucket is a list of pooled nodes sorted by (time, priority, sequence), with its tail kept
// so that the usual push (the latest event of its bucket) appends in O(1); an occupancy bitmap
// finds the next non-empty bucket 64 buckets per word. Every event outside the window (later
// than it: 10 ms sleeps beside ns deliveries; or earlier, after a peek moved the window), and
// every event whose bucket is crowded (a sorted insert would walk more than kMaxWalk nodes), goes
// to the heap instead. The earliest event is the earlier of the wheel's first and the heap's top,
// so the order is exact, identical to a single heap's, wherever each event sits.
//
// Cost: push O(1) into the wheel, O(log n) into the heap; pop O(1) amortised from the wheel
// (bitmap scan), O(log n) from the heap. It never degrades below the heap's O(log n): a bad
// bucket width only moves events to the heap. The width follows the events (narrower when lists
// grow long, wider when many events leave from the heap) and W follows the number of wheel events.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/event.h"
#include "sim/quad_heap.h"

namespace ipisim::sim {

class EventQueue {
public:
    EventQueue();

    [[nodiscard]] bool empty() const { return size_ == 0; }
    [[nodiscard]] size_t size() const { return size_; }

    IPISIM_INLINE void push(const Event& e) {
        ++size_;
        if (e.time >= base_ && e.time < limit_ && link(e)) return;
        heap_.push(e);
    }

    // Precondition: !empty().
    IPISIM_INLINE Event pop() {
        const bool from_wheel = earliest_in_wheel();
        return from_wheel ? take() : take_heap();
    }

    // Pops the earliest event into *out if its time is <= limit. Precondition: !empty().
    IPISIM_INLINE bool pop_until(uint64_t limit, Event* out) {
        const bool from_wheel = earliest_in_wheel();
        const uint64_t t = from_wheel ? nodes_[buckets_[cur_].head].ev.time : heap_.top().time;
        if (t > limit) return false;
        *out = from_wheel ? take() : take_heap();
        return true;
    }

    // Earliest event's time; precondition: !empty().
    [[nodiscard]] uint64_t peek_time() {
        return earliest_in_wheel() ? nodes_[buckets_[cur_].head].ev.time : heap_.top().time;
    }

    // Introspection for tests and benchmarks.
    [[nodiscard]] size_t wheel_size() const { return wheel_; }
    [[nodiscard]] size_t heap_size() const { return heap_.size(); }
    [[nodiscard]] size_t bucket_count() const { return mask_ + 1; }
    [[nodiscard]] uint64_t bucket_width() const { return uint64_t{1} << shift_; }

private:
    static constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();
    static constexpr uint32_t kMaxWalk = 16;
    static constexpr uint64_t kWindow = 4096;  // pops between width re-estimations

    struct Node {
        Event ev;
        uint32_t next;
    };
    struct Bucket {
        uint32_t head = kNil;
        uint32_t tail = kNil;
    };

    [[nodiscard]] IPISIM_INLINE uint64_t span() const { return (mask_ + 1) << shift_; }

    // Inserts e into its wheel bucket; false (nothing changed) if the bucket is too crowded.
    IPISIM_INLINE bool link(const Event& e) {
        const size_t i = (e.time >> shift_) & mask_;
        Bucket& b = buckets_[i];
        if (b.head == kNil) {
            const uint32_t n = alloc(e, kNil);
            b.head = b.tail = n;
            bits_[i >> 6] |= uint64_t{1} << (i & 63);
        } else if (!before(e, nodes_[b.tail].ev)) {
            const uint32_t n = alloc(e, kNil);
            nodes_[b.tail].next = n;
            b.tail = n;
        } else if (before(e, nodes_[b.head].ev)) {
            b.head = alloc(e, b.head);
        } else if (!link_inside(b, e)) {
            return false;
        }
        if (++wheel_ > mask_ + 1) grow();
        return true;
    }

    IPISIM_INLINE uint32_t alloc(const Event& e, uint32_t next) {
        uint32_t n = free_;
        if (n != kNil) {
            free_ = nodes_[n].next;
            nodes_[n] = Node{e, next};
        } else {
            n = static_cast<uint32_t>(nodes_.size());
            nodes_.push_back(Node{e, next});
        }
        return n;
    }

    // Positions cur_ at the first non-empty wheel bucket; true if the wheel's earliest event is
    // the queue's earliest. Precondition: !empty().
    IPISIM_INLINE bool earliest_in_wheel() {
        if (wheel_ == 0) return false;
        if (buckets_[cur_].head == kNil) seek();
        return heap_.empty() || !before(heap_.top(), nodes_[buckets_[cur_].head].ev);
    }

    IPISIM_INLINE Event take() {
        Bucket& b = buckets_[cur_];
        const uint32_t n = b.head;
        b.head = nodes_[n].next;
        if (b.head == kNil) {
            b.tail = kNil;
            bits_[cur_ >> 6] &= ~(uint64_t{1} << (cur_ & 63));
        }
        const Event e = nodes_[n].ev;
        nodes_[n].next = free_;
        free_ = n;
        --wheel_;
        --size_;
        if (++ops_ >= kWindow) end_window();
        return e;
    }

    IPISIM_INLINE Event take_heap() {
        const Event e = heap_.pop();
        --size_;
        ++heap_pops_;
        // The window follows the events: with the wheel empty it restarts at this one.
        if (wheel_ == 0) anchor(e.time);
        if (++ops_ >= kWindow) end_window();
        return e;
    }

    bool link_inside(Bucket& b, const Event& e);
    void seek();
    void anchor(uint64_t time);
    void end_window();
    void grow();
    void rebuild(uint32_t bucket_bits, uint32_t shift);
    // Moves the heap's earliest events into the wheel while they fall inside the window.
    void migrate();

    std::vector<Node> nodes_;
    uint32_t free_ = kNil;
    std::vector<Bucket> buckets_;
    std::vector<uint64_t> bits_;  // bit i: bucket i is non-empty
    size_t mask_ = 0;             // bucket count - 1 (a power of two, >= 64)
    uint32_t bucket_bits_ = 0;
    uint32_t shift_ = 10;  // bucket width = 2^shift ps
    size_t cur_ = 0;       // bucket of base_
    uint64_t base_ = 0;    // start of the window (a multiple of the width)
    uint64_t limit_ = 0;   // end of the window, exclusive (saturated at 2^64 - 1)
    size_t wheel_ = 0;     // events in the wheel
    size_t size_ = 0;      // events in the wheel and the heap
    EventHeap heap_;
    // Width re-estimation, over windows of kWindow pops.
    uint64_t ops_ = 0;
    uint64_t walk_steps_ = 0;
    uint64_t heap_pops_ = 0;
};

}  // namespace ipisim::sim
