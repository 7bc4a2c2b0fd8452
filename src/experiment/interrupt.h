// SIGINT and SIGTERM while results are being written: the open results folders keep every
// point finished so far (results.json, "complete": false), one line on stderr says what was
// kept, and the process exits 130 (SIGINT) or 143 (SIGTERM) at once, whatever its threads are
// doing. The signals are taken by a thread of their own (sigwait), so nothing runs in a signal
// handler; a write in progress finishes first (the folder's lock).
//
//   experiment::catch_interrupts();               // first, before any other thread starts
//   experiment::InterruptScope scope(folder);     // while the folder (or journal) is written
#pragma once

#include <string>

namespace ipisim::experiment {

// What keeps finished work on disk while it runs (a results folder, a sensitivity journal): on
// an interrupt it stops writing and says what it kept ("" if nothing), e.g. "seed000_rar: 3 of
// 24 points in DIR/results.json (\"complete\": false)". Called from the interrupt thread; it
// waits for a write in progress (its own lock).
class Interruptible {
public:
    virtual std::string close_for_interrupt() = 0;

protected:
    Interruptible() = default;
    ~Interruptible() = default;
    Interruptible(const Interruptible&) = default;
    Interruptible& operator=(const Interruptible&) = default;
};

// Blocks SIGINT and SIGTERM in this thread (threads started later inherit that) and starts the
// thread that waits for them. Call once, from the main thread, before starting others.
void catch_interrupts();

// Registers a folder (or journal) for the interrupt message while it lives.
class InterruptScope {
public:
    explicit InterruptScope(Interruptible& folder);
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

private:
    Interruptible* folder_;
};

}  // namespace ipisim::experiment
