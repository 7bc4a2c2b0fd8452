// SIGINT and SIGTERM while results are being written: the open results folders keep every
// point finished so far (results.json, "complete": false), one line on stderr says what was
// kept, and the process exits 130 (SIGINT) or 143 (SIGTERM) at once, whatever its threads are
// doing. The signals are taken by a thread of their own (sigwait), so nothing runs in a signal
// handler; a write in progress finishes first (the folder's lock).
//
//   experiment::catch_interrupts();               // first, before any other thread starts
//   experiment::InterruptScope scope(folder);     // while the folder is written
#pragma once

#include "experiment/results_folder.h"

namespace ipisim::experiment {

// Blocks SIGINT and SIGTERM in this thread (threads started later inherit that) and starts the
// thread that waits for them. Call once, from the main thread, before starting others.
void catch_interrupts();

// Registers a folder for the interrupt message while it lives.
class InterruptScope {
public:
    explicit InterruptScope(ResultsFolder& folder);
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

private:
    ResultsFolder* folder_;
};

}  // namespace ipisim::experiment
