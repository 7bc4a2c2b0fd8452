// The simulated memory of one machine: cache lines, the shared variables on them, and the
// accesses CPUs make to those variables. Costs and serialization follow coherence_protocol.h.
//
//   hw::Memory mem(eng, machine.topology, machine.coherence);
//   hw::SimVar& flag = mem.new_aligned_var("csd.flags", topo.node_of(cpu));
//   co_await mem.store(0, flag, 1);                      // in process code, as CPU 0
//   uint64_t v = co_await mem.wait_until(1, flag, [](uint64_t x) { return x == 1; });
//
// Every access is a plain awaitable run inline in the calling process, masked while it waits
// (see access.h). Atomics keep the kernel's names and return conventions (cmpxchg returns the
// old value, try_cmpxchg a success flag, test_and_set_bit the old bit).
//
// Spinning without polling: a spinner loads, checks, and if unsatisfied sleeps on the line's
// `written` signal; each completed write to the line (any variable on it: false sharing)
// wakes it, and its next load is a miss that pays the re-fetch and queues on the line like any
// other transaction. Nothing is scheduled while nobody writes the line. No wake-up is lost:
// the value a load returns includes every write reserved before it, and every write reserved
// after it completes after the load does (serialization), so its notification finds the
// spinner already asleep.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "hw/coherence/access.h"
#include "hw/coherence/cache_line.h"
#include "hw/coherence/coherence_protocol.h"
#include "hw/coherence/loads.h"
#include "hw/coherence/sim_var.h"
#include "sim/signal.h"
#include "sim/task.h"

namespace ipisim::hw {

// What spin_until returns: done with the satisfying value, or the interrupt that cut it short.
struct SpinResult {
    bool done = false;
    uint64_t value = 0;  // the last value loaded
    sim::Wake wake{};    // when !done: the interrupted wake (wake.irq)
};

class Memory {
public:
    // The topology and spec are referenced, not copied: they must outlive the Memory.
    Memory(sim::Engine& eng, const Topology& topo, const CoherenceSpec& spec);
    Memory(const Memory&) = delete;
    Memory& operator=(const Memory&) = delete;

    // --- allocation (addresses are stable for the life of the Memory) ---
    CacheLine& new_line(std::string name, uint32_t home_node);
    // A variable in the next free 8-byte slot of `line` (std::length_error past 8 per line).
    SimVar& new_var(CacheLine& line, uint64_t initial = 0);
    // A variable alone on a new line (____cacheline_aligned).
    SimVar& new_aligned_var(std::string name, uint32_t home_node, uint64_t initial = 0);

    [[nodiscard]] size_t line_count() const { return lines_.size(); }
    [[nodiscard]] CacheLine& line(uint32_t id) { return lines_.at(id); }
    // Statistics summed over every line.
    [[nodiscard]] LineStats total_stats() const;
    [[nodiscard]] const CoherenceProtocol& protocol() const { return protocol_; }

    // --- accesses by CPU `cpu` (co_await them at once, from process code) ---
    ValueAccess load(CpuId cpu, SimVar& v) { return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::load}; }
    // Independent loads issued together, one wait for the slowest (loads.h); a nullptr is
    // skipped and reads 0. co_await yields std::array<uint64_t, N> in argument order.
    template <class... Vars>
    LoadsAccess<sizeof...(Vars)> loads(CpuId cpu, Vars*... vars) {
        return {eng_, protocol_, sb_.get(), cpu, std::array<SimVar*, sizeof...(Vars)>{vars...}};
    }
    VoidAccess store(CpuId cpu, SimVar& v, uint64_t value) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::store, value, kWholeWord};
    }
    // A store of the bytes of `mask` only, where the model packs several kernel variables into
    // one SimVar (WRITE_ONCE(bitmap[i], x) of a u8 array kept as 64-bit words): the other bytes
    // keep whatever other CPUs write meanwhile. A plain store, not a locked RMW.
    VoidAccess store_bytes(CpuId cpu, SimVar& v, uint64_t value, uint64_t mask) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::store, value, mask};
    }
    // A store that also wakes the spinners of `also` when it completes (becomes visible, with a
    // store buffer): for spinners the model puts to sleep on another line than the one they
    // poll second (a waiter that polls two lines sleeps on one).
    VoidAccess store(CpuId cpu, SimVar& v, uint64_t value, sim::Signal& also) {
        VoidAccess a{eng_, protocol_, sb_.get(), cpu, v, AccessOp::store, value, kWholeWord};
        a.also_notify(&also);
        return a;
    }
    ValueAccess xchg(CpuId cpu, SimVar& v, uint64_t value) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::xchg, value};
    }
    // Returns the old value; the store happened iff it equals `expected`. A failed cmpxchg
    // still takes the line exclusive (x86 LOCK CMPXCHG always writes) and wakes spinners.
    ValueAccess cmpxchg(CpuId cpu, SimVar& v, uint64_t expected, uint64_t desired) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::cmpxchg, expected, desired};
    }
    // Kernel try_cmpxchg: true on success; on failure `expected` receives the current value.
    TryCmpxchgAccess try_cmpxchg(CpuId cpu, SimVar& v, uint64_t& expected, uint64_t desired) {
        return {eng_, protocol_, sb_.get(), cpu, v, expected, desired};
    }
    // A try_cmpxchg loop that adds `delta` unless the value has a bit of `fail_mask` (the
    // kernel's read-then-try_cmpxchg idiom: __down_read_trylock, refcount_inc_not_zero), after
    // the caller's load: one write transaction, returning the old value (the add happened iff
    // (old & fail_mask) == 0). [A] A failed LOCK CMPXCHG leaves the line exclusive in this CPU's
    // L1, and the retry, a few instructions later, runs before the next requester's snoop (tens
    // of ns on a mesh or fabric) takes it away; so the retries cost nothing more.
    ValueAccess add_unless_any(CpuId cpu, SimVar& v, uint64_t delta, uint64_t fail_mask) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::add_unless_any, delta, fail_mask};
    }
    // Wraps modulo 2^64.
    ValueAccess fetch_add(CpuId cpu, SimVar& v, uint64_t delta) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::fetch_add, delta};
    }
    ValueAccess fetch_or(CpuId cpu, SimVar& v, uint64_t mask) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::fetch_or, mask};
    }
    ValueAccess fetch_and(CpuId cpu, SimVar& v, uint64_t mask) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::fetch_and, mask};
    }
    // Atomic bit operations on bit `nr` (0..63); test_* return the old bit.
    BitAccess test_and_set_bit(CpuId cpu, SimVar& v, unsigned nr) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::fetch_or, uint64_t{1} << nr, nr};
    }
    BitAccess test_and_clear_bit(CpuId cpu, SimVar& v, unsigned nr) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::fetch_and, ~(uint64_t{1} << nr), nr};
    }
    VoidAccess set_bit(CpuId cpu, SimVar& v, unsigned nr) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::fetch_or, uint64_t{1} << nr};
    }
    VoidAccess clear_bit(CpuId cpu, SimVar& v, unsigned nr) {
        return {eng_, protocol_, sb_.get(), cpu, v, AccessOp::fetch_and, ~(uint64_t{1} << nr)};
    }

    // What `cpu` reads of v at no cost: its own newest buffered store to v if it has one
    // (store_buffer.h), else v.peek(). For the model's reads of a CPU's own registers-like
    // state (the PCID its CR3 holds); never a substitute for a timed load of shared data.
    [[nodiscard]] uint64_t peek(CpuId cpu, const SimVar& v) const {
        uint64_t value = 0;
        if (sb_ != nullptr && sb_->forward(cpu, v, value)) return value;
        return v.peek();
    }

    // Waits until every store `cpu` has buffered has completed (mfence, smp_mb(), a
    // serializing instruction; store_buffer.h). Free on a machine without store buffers.
    Fence fence(CpuId cpu) { return {sb_.get(), cpu}; }
    // The store buffers (nullptr: `[coherence] store_buffer` is 0).
    [[nodiscard]] StoreBuffers* store_buffers() { return sb_.get(); }

    // A read of v issued ahead of program order by `cpu`'s out-of-order window (no wait, no
    // value: the access in program order gets both; coherence_protocol.h). False when no fill
    // buffer is free. Use hw::ReadAhead, which decides what the window reaches.
    bool prefetch(CpuId cpu, SimVar& v) { return protocol_.prefetch_read(cpu, v.line()); }
    [[nodiscard]] uint32_t fills_in_flight(CpuId cpu) { return protocol_.fills_in_flight(cpu); }

    // --- spinning ---
    // Sleeps until a write to v's line completes. Interruptible unless the process is masked:
    // Wake.notified() after a write, Wake.interrupted() (with the irq) after an interrupt.
    // Costs nothing and schedules nothing by itself; the caller's next load pays the re-fetch.
    sim::Signal::Awaiter wait_for_write(SimVar& v) { return v.line().written().wait(); }
    // The same, ending after `timeout` at the latest (Wake.timed_out()).
    sim::Signal::Awaiter wait_for_write_for(SimVar& v, sim::Picos timeout) {
        return v.line().written().wait_for(timeout);
    }

    // Spins with interrupts masked (an interrupt stays pending) until pred(value); returns the
    // satisfying value.
    template <class Pred>
    sim::Task<uint64_t> wait_until(CpuId cpu, SimVar& v, Pred pred);

    // Spins interruptibly until pred(value) (done) or an interrupt arrives while it sleeps
    // (!done, wake.irq). Loads themselves are never interrupted. After handling the interrupt
    // call it again: if the line was not written meanwhile the first load is an L1 hit.
    template <class Pred>
    sim::Task<SpinResult> spin_until(CpuId cpu, SimVar& v, Pred pred);

private:
    sim::Engine& eng_;
    CoherenceProtocol protocol_;
    std::unique_ptr<StoreBuffers> sb_;
    HolderPool holder_pool_;
    std::deque<CacheLine> lines_;  // stable addresses, contiguous chunks
    std::deque<LineCold> cold_;    // by line id
    std::deque<SimVar> vars_;
};

template <class Pred>
sim::Task<uint64_t> Memory::wait_until(CpuId cpu, SimVar& v, Pred pred) {
    sim::Process* self = sim::Process::current();
    self->mask();
    for (;;) {
        const uint64_t value = co_await load(cpu, v);
        if (pred(value)) {
            self->unmask();
            co_return value;
        }
        co_await wait_for_write(v);
    }
}

template <class Pred>
sim::Task<SpinResult> Memory::spin_until(CpuId cpu, SimVar& v, Pred pred) {
    for (;;) {
        const uint64_t value = co_await load(cpu, v);
        if (pred(value)) co_return SpinResult{true, value, {}};
        const sim::Wake w = co_await wait_for_write(v);
        if (w.interrupted()) co_return SpinResult{false, value, w};
    }
}

}  // namespace ipisim::hw
