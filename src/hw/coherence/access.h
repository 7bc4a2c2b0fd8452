// One memory access as a plain awaitable (no coroutine frame, no task-stack push):
//   uint64_t v = co_await mem.load(cpu, var);
// When awaited, the access is reserved on the line (coherence_protocol.h) and takes effect on
// the variable; the awaiting code then waits for its completion with the process's interrupts
// masked — an access cannot be interrupted half-way; an interrupt arriving meanwhile stays
// pending for the next interruptible wait — and a write then wakes the spinners of the line.
// A zero wait does not suspend; nor does a hit whose wait ends before anything else happens
// (sim::Engine::advance_inline: the clock moves on in place, the fingerprint is unchanged).
// Await the expression at once (it is lazy: nothing happens until it is awaited; it refers to
// the variable and, for try_cmpxchg, to `expected`).
#pragma once

#include <coroutine>
#include <cstdint>

#include "hw/coherence/coherence_protocol.h"
#include "hw/coherence/sim_var.h"
#include "hw/coherence/store_buffer.h"
#include "sim/engine.h"
#include "sim/process.h"

namespace ipisim::hw {

enum class AccessOp : uint8_t { load, store, xchg, cmpxchg, fetch_add, fetch_or, fetch_and, add_unless_any };

// The start of an access's wait of `wait` by the current process (`proc` is set to it): true when
// the wait is over at once, which is when it is zero, or when it is a hit and nothing else
// happens before it ends (a hit's wait cannot be interrupted, the access being masked, and
// nothing else waits on it: it ends in place, no queue trip); else false, with the process
// masked (`masked` set) for the caller to suspend it.
IPISIM_INLINE bool access_wait_ends_at_once(sim::Engine& eng, sim::Picos wait, bool hit, sim::Process*& proc,
                                            bool& masked) {
    if (wait == sim::Picos::zero()) return true;
    proc = sim::Process::current();
    if (hit && eng.advance_inline(eng.now() + wait, proc->id())) return true;
    proc->mask();
    masked = true;
    return false;
}

// A load by `cpu` of `v` taken now: the newest value this CPU's store buffer holds for it (in
// C.l1_hit), else the value after every access reserved on the line so far, its read reserved
// there (coherence_protocol.h). `sb`: nullptr when the machine has none.
struct LoadTaken {
    uint64_t value = 0;
    sim::Picos wait;
    bool hit = false;
};
IPISIM_INLINE LoadTaken take_load(CoherenceProtocol& protocol, StoreBuffers* sb, CpuId cpu, const SimVar& v) {
    LoadTaken t;
    if (sb != nullptr && sb->forward(cpu, v, t.value)) {
        t.wait = protocol.spec().l1_hit;  // forwarded from the buffer
        t.hit = true;
        return t;
    }
    const CoherenceProtocol::Reservation r = protocol.reserve_read(cpu, v.line());
    t.value = v.peek();
    t.wait = r.wait;
    t.hit = r.hit;
    return t;
}

// The byte mask of a store of the whole variable.
inline constexpr uint64_t kWholeWord = ~uint64_t{0};

// The common part; await_resume is the typed awaiters' (below). `a`, `b`: the operands (the
// stored value and the mask of the bytes it writes, the cmpxchg expected/desired pair, the delta
// or mask).
class AccessBase {
public:
    AccessBase(sim::Engine& eng, CoherenceProtocol& protocol, StoreBuffers* sb, CpuId cpu, SimVar& v, AccessOp op,
               uint64_t a = 0, uint64_t b = 0)
        : eng_(eng), protocol_(protocol), sb_(sb), v_(v), a_(a), b_(b), cpu_(cpu), op_(op) {}

    IPISIM_INLINE bool await_ready() {
        if (op_ == AccessOp::load) {
            const LoadTaken t = take_load(protocol_, sb_, cpu_, v_);
            old_ = t.value;
            wait_ = t.wait;
            return access_wait_ends_at_once(eng_, wait_, t.hit, proc_, masked_);
        }
        if (sb_ != nullptr) {
            // This CPU has a store buffer (store_buffer.h).
            if (op_ == AccessOp::store) {
                if (sb_->try_push_store(cpu_, v_, a_, b_, also_)) return true;  // buffered: the CPU goes on
                queued_ = Queued::full_store;
            } else if (!sb_->empty(cpu_)) {
                queued_ = Queued::rmw;  // a locked RMW waits for the older stores
            }
            if (queued_ != Queued::none) {
                proc_ = sim::Process::current();
                proc_->mask();
                masked_ = true;
                return false;
            }
        }
        const bool hit = reserve();
        return access_wait_ends_at_once(eng_, wait_, hit, proc_, masked_);
    }
    IPISIM_INLINE void await_suspend(std::coroutine_handle<>) {
        const uint32_t epoch = proc_->begin_wait(nullptr);
        switch (queued_) {
            case Queued::none:
                eng_.schedule_in(wait_, &sim::Process::on_wake_event, proc_, epoch, proc_->id());
                break;
            case Queued::full_store:
                sb_->push_full_store(cpu_, v_, a_, b_, also_, proc_, epoch);
                break;
            case Queued::rmw:
                sb_->push_rmw(cpu_, this, proc_, epoch);
                break;
        }
    }

    // Spinners of another line to wake with this write's own (a store only; Memory::store).
    void also_notify(sim::Signal* s) { also_ = s; }

    // Reserves the access on its line now and applies it to the variable (an RMW behind
    // buffered stores: called by the store buffer once they have completed); returns the wait.
    sim::Picos perform() {
        reserve();
        return wait_;
    }

protected:
    // Ends the access; returns the value loaded or the old value of a write.
    IPISIM_INLINE uint64_t finish() {
        if (masked_) proc_->unmask();  // pending interrupts stay pending
        // A buffered store's line is notified when the buffer commits it.
        if (op_ != AccessOp::load && !(op_ == AccessOp::store && sb_ != nullptr)) {
            v_.line().written().notify_all();
            if (also_ != nullptr) also_->notify_all();
        }
        return old_;
    }
    [[nodiscard]] uint64_t expected() const { return a_; }

private:
    enum class Queued : uint8_t { none, full_store, rmw };

    // Reserves the write (a store or an RMW; a load is take_load's) on the line and applies it
    // (sets wait_ and old_); true for a hit.
    IPISIM_INLINE bool reserve() {
        const CoherenceProtocol::Reservation r = protocol_.reserve_write(cpu_, v_.line());
        wait_ = r.wait;
        old_ = v_.value_;
        v_.value_ = apply(old_);
        return r.hit;
    }

    [[nodiscard]] IPISIM_INLINE uint64_t apply(uint64_t old) const {
        switch (op_) {
            case AccessOp::load:
                return old;
            case AccessOp::store:
                return (old & ~b_) | (a_ & b_);  // the bytes of mask b_ (all of them: a plain store)
            case AccessOp::xchg:
                return a_;
            case AccessOp::cmpxchg:
                return old == a_ ? b_ : old;  // a failed cmpxchg still took the line (LOCK CMPXCHG)
            case AccessOp::fetch_add:
                return old + a_;  // wraps modulo 2^64
            case AccessOp::fetch_or:
                return old | a_;
            case AccessOp::fetch_and:
                return old & a_;
            case AccessOp::add_unless_any:
                return (old & b_) == 0 ? old + a_ : old;
        }
        return old;
    }

    sim::Engine& eng_;
    CoherenceProtocol& protocol_;
    StoreBuffers* sb_;  // nullptr: the machine has none
    sim::Signal* also_ = nullptr;
    SimVar& v_;
    uint64_t a_;
    uint64_t b_;
    uint64_t old_ = 0;
    sim::Picos wait_;
    sim::Process* proc_ = nullptr;
    CpuId cpu_;
    AccessOp op_;
    bool masked_ = false;  // waited with the process masked
    Queued queued_ = Queued::none;
};

// co_await yields the value loaded, or the old value of a write.
class [[nodiscard]] ValueAccess : public AccessBase {
public:
    using AccessBase::AccessBase;
    IPISIM_INLINE uint64_t await_resume() { return finish(); }
};

// co_await yields nothing (store, set_bit, clear_bit).
class [[nodiscard]] VoidAccess : public AccessBase {
public:
    using AccessBase::AccessBase;
    IPISIM_INLINE void await_resume() { finish(); }
};

// co_await yields bit `nr` of the old value (test_and_set_bit, test_and_clear_bit).
class [[nodiscard]] BitAccess : public AccessBase {
public:
    BitAccess(sim::Engine& eng, CoherenceProtocol& protocol, StoreBuffers* sb, CpuId cpu, SimVar& v, AccessOp op,
              uint64_t mask, unsigned nr)
        : AccessBase(eng, protocol, sb, cpu, v, op, mask), nr_(nr) {}
    IPISIM_INLINE bool await_resume() { return ((finish() >> nr_) & 1U) != 0; }

private:
    unsigned nr_;
};

// Kernel try_cmpxchg: co_await yields true on success; on failure `expected` gets the value.
class [[nodiscard]] TryCmpxchgAccess : public AccessBase {
public:
    TryCmpxchgAccess(sim::Engine& eng, CoherenceProtocol& protocol, StoreBuffers* sb, CpuId cpu, SimVar& v,
                     uint64_t& expected, uint64_t desired)
        : AccessBase(eng, protocol, sb, cpu, v, AccessOp::cmpxchg, expected, desired), expected_(expected) {}
    IPISIM_INLINE bool await_resume() {
        const uint64_t old = finish();
        if (old == expected()) return true;
        expected_ = old;
        return false;
    }

private:
    uint64_t& expected_;
};

}  // namespace ipisim::hw
