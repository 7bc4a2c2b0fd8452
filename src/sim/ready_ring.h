// FIFO of same-time wake-ups (notify, interrupt detach): cheaper than the timed queue and
// trivially ordered. Grows by doubling; never shrinks, so steady state does not allocate.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/event.h"

namespace ipisim::sim {

class ReadyRing {
public:
    ReadyRing() : buf_(64), mask_(63) {}

    [[nodiscard]] IPISIM_INLINE bool empty() const { return head_ == tail_; }
    [[nodiscard]] size_t size() const { return tail_ - head_; }

    IPISIM_INLINE void push(const Event& e) {
        if (tail_ - head_ == buf_.size()) grow();
        buf_[tail_++ & mask_] = e;
    }
    IPISIM_INLINE Event pop() { return buf_[head_++ & mask_]; }

private:
    void grow() {
        std::vector<Event> bigger(buf_.size() * 2);
        size_t n = tail_ - head_;
        for (size_t i = 0; i < n; ++i) bigger[i] = buf_[(head_ + i) & mask_];
        buf_.swap(bigger);
        mask_ = buf_.size() - 1;
        head_ = 0;
        tail_ = n;
    }

    std::vector<Event> buf_;
    size_t mask_;
    size_t head_ = 0;
    size_t tail_ = 0;
};

}  // namespace ipisim::sim
