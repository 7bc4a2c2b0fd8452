#include "sim/signal.h"

namespace ipisim::sim {

Signal::~Signal() {
    // Detach remaining waiters so their nodes do not point at a dead list.
    while (has_waiters()) head_.next->unlink();
}

size_t Signal::waiter_count() const {
    size_t n = 0;
    for (const WaitNode* w = head_.next; w != &head_; w = w->next) ++n;
    return n;
}

bool Signal::notify_one() {
    if (!has_waiters()) return false;
    WaitNode* n = head_.next;
    n->unlink();
    n->proc->wake_now(WakeReason::Notified);
    return true;
}

size_t Signal::notify_waiters() {
    size_t count = 0;
    while (notify_one()) ++count;
    return count;
}

}  // namespace ipisim::sim
