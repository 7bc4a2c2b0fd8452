// The timed event queue: a calendar queue (R. Brown, CACM 1988). Buckets of width 2^shift ps
// cover one "year"; each bucket keeps its events sorted, so dequeue is a scan of a few buckets
// and enqueue is usually an append. The bucket count follows the queue size and the width is
// re-estimated from the spacing of the earliest events on every resize. Ordering is exact:
// (time, priority, sequence), identical to a binary heap's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event.h"

namespace ipisim::sim {

class CalendarQueue {
public:
    CalendarQueue();

    [[nodiscard]] bool empty() const { return size_ == 0; }
    [[nodiscard]] size_t size() const { return size_; }

    void push(const Event& e);
    // Precondition: !empty().
    Event pop();
    // Earliest event's time; precondition: !empty().
    [[nodiscard]] uint64_t peek_time();
    // Pops the earliest event into *out if its time is <= limit.
    bool pop_until(uint64_t limit, Event* out);

private:
    struct Bucket {
        std::vector<Event> events;  // sorted ascending from index head
        uint32_t head = 0;
        [[nodiscard]] bool empty() const { return head == events.size(); }
    };

    void insert(Bucket& b, const Event& e);
    // Positions cur_ at the bucket holding the earliest event, without removing it.
    void seek();
    void resize(size_t nbuckets);
    Event take();
    void account_and_maybe_recalibrate();

    std::vector<Bucket> buckets_;
    size_t mask_ = 0;
    uint32_t shift_ = 10;      // bucket width = 2^shift ps
    size_t cur_ = 0;           // bucket of the current window
    uint64_t cur_top_ = 0;     // exclusive end of the current window
    size_t size_ = 0;
    // Recalibration (Brown): the width follows the event spacing. Measured over windows of
    // pops: bucket steps scanned per pop and events shifted per insert.
    uint64_t scan_steps_ = 0;
    uint64_t shifts_ = 0;
    uint64_t ops_ = 0;
};

}  // namespace ipisim::sim
