// The discrete-event engine: simulated time, the timed queue, the same-time ready ring, the
// processes, and the run fingerprint.
//
//   sim::Engine eng;
//   eng.spawn("cpu0", cpu_body(eng));
//   eng.run_until(1_ms);
//   fmt::print("fingerprint {:016x}\n", eng.fingerprint());
//
// Dispatch order: the ready ring (same-time wake-ups, FIFO) first, then timed events by
// (time, priority, insertion sequence). Every dispatched event is hashed (time, tag) into the
// fingerprint; tags are deterministic ids, never pointers, so the fingerprint is bit-identical
// across runs, builds and machines for the same inputs.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/event.h"
#include "sim/event_queue.h"
#include "sim/process.h"
#include "sim/ready_ring.h"
#include "sim/time.h"

namespace ipisim::sim {

class Engine {
public:
    Engine();
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    [[nodiscard]] IPISIM_INLINE Picos now() const { return Picos(now_); }

    // A timed event at absolute time t (>= now).
    IPISIM_INLINE void schedule_at(Picos t, EventFn fn, void* obj, uint32_t arg, uint32_t tag,
                                   Priority prio = Priority::Normal) {
        queue_.push(Event{t.count(), make_key(prio, seq_++), fn, obj, arg, tag});
    }
    IPISIM_INLINE void schedule_in(Picos d, EventFn fn, void* obj, uint32_t arg, uint32_t tag,
                                   Priority prio = Priority::Normal) {
        schedule_at(Picos(now_ + d.count()), fn, obj, arg, tag, prio);
    }
    // A wake-up at the current time, after everything already in the ready ring.
    IPISIM_INLINE void post(EventFn fn, void* obj, uint32_t arg, uint32_t tag) {
        ready_.push(Event{now_, 0, fn, obj, arg, tag});
    }

    // Moves the clock to t (> now) in place of dispatching an event (time t, tag) that the
    // caller would schedule now and that would be dispatched next: true when the ready ring is
    // empty, every timed event is later than t, and the current run_until() reaches t. The
    // event is hashed into the fingerprint as if dispatched, so the run's fingerprint does not
    // depend on which waits completed in place; it is counted in inline_completions(), not in
    // events_dispatched(). False (nothing changed) otherwise: schedule the event.
    [[nodiscard]] IPISIM_INLINE bool advance_inline(Picos t, uint32_t tag) {
        const uint64_t time = t.count();
        if (!ready_.empty() || stopped_ || time > limit_) return false;
        if (!queue_.empty() && queue_.peek_time() <= time) return false;
        now_ = time;
        fingerprint_ = mix(fingerprint_, time, tag);
        ++inline_;
        return true;
    }

    // Creates a process; it starts at the current time, in spawn order.
    Process& spawn(std::string name, Proc body);

    // Runs until no event is left or stop() is called.
    void run();
    // Dispatches every event with time <= limit; afterwards now() == limit unless stopped.
    void run_until(Picos limit);
    void stop() { stopped_ = true; }

    [[nodiscard]] uint64_t fingerprint() const { return fingerprint_; }
    [[nodiscard]] uint64_t events_dispatched() const { return events_; }
    // Waits that completed in place (advance_inline) instead of as dispatched events.
    [[nodiscard]] uint64_t inline_completions() const { return inline_; }
    // The events of the run's model, however they ended: dispatched or completed in place. The
    // count results and benchmarks report; it does not depend on advance_inline.
    [[nodiscard]] uint64_t events_simulated() const { return events_ + inline_; }
    [[nodiscard]] size_t pending_events() const { return queue_.size() + ready_.size(); }
    [[nodiscard]] size_t process_count() const { return processes_.size(); }
    [[nodiscard]] Process& process(uint32_t id) { return processes_.at(id); }

    // Destroys every process's frames now (also done by the destructor).
    void shutdown();

private:
    static void start_process(void* obj, uint32_t);
    // Folds one dispatched event into the fingerprint.
    static IPISIM_INLINE uint64_t mix(uint64_t h, uint64_t time, uint32_t tag) {
        h ^= time + 0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(tag) + 1);
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
        return h;
    }

    EventQueue queue_;
    ReadyRing ready_;
    uint64_t now_ = 0;
    uint64_t seq_ = 0;
    uint64_t fingerprint_ = 0xcbf29ce484222325ULL;
    uint64_t events_ = 0;
    uint64_t inline_ = 0;
    uint64_t limit_ = 0;  // the current run_until()'s limit (0 outside a run)
    bool stopped_ = false;
    std::deque<Process> processes_;  // contiguous chunks: wake-ups touch neighbouring objects
};

}  // namespace ipisim::sim
