// A 4-ary min-heap of values: push O(log4 n), pop O(4 log4 n), top O(1). Four children share
// one or two cache lines, so it is shallower and more cache-friendly than a binary heap.
// `Before(a, b)` is a strict weak order; equal elements leave in no particular order, so give
// them a unique tie-break (the engine's events carry an insertion sequence).
#pragma once

#include <cstddef>
#include <vector>

#include "sim/event.h"

namespace ipisim::sim {

template <class T, class Before>
class QuadHeap {
public:
    [[nodiscard]] bool empty() const { return h_.empty(); }
    [[nodiscard]] size_t size() const { return h_.size(); }
    // Precondition: !empty().
    [[nodiscard]] const T& top() const { return h_.front(); }

    IPISIM_INLINE void push(const T& v) {
        size_t i = h_.size();
        h_.push_back(v);
        while (i > 0) {
            const size_t parent = (i - 1) >> 2;
            if (!Before{}(v, h_[parent])) break;
            h_[i] = h_[parent];
            i = parent;
        }
        h_[i] = v;
    }

    // Precondition: !empty().
    IPISIM_INLINE T pop() {
        const T top = h_.front();
        const T last = h_.back();
        h_.pop_back();
        const size_t n = h_.size();
        if (n == 0) return top;
        size_t i = 0;
        for (;;) {
            const size_t first = 4 * i + 1;
            if (first >= n) break;
            const size_t end = first + 4 < n ? first + 4 : n;
            size_t best = first;
            for (size_t c = first + 1; c < end; ++c) {
                if (Before{}(h_[c], h_[best])) best = c;
            }
            if (!Before{}(h_[best], last)) break;
            h_[i] = h_[best];
            i = best;
        }
        h_[i] = last;
        return top;
    }

    void clear() { h_.clear(); }

private:
    std::vector<T> h_;
};

struct EventBefore {
    IPISIM_INLINE bool operator()(const Event& a, const Event& b) const { return before(a, b); }
};

// Events ordered by (time, priority, sequence): usable on its own as a timed queue.
using EventHeap = QuadHeap<Event, EventBefore>;

}  // namespace ipisim::sim
