// The store buffers of a machine's CPUs: x86-TSO's per-CPU FIFO of stores (P. Sewell, S. Sarkar,
// S. Owens, F. Zappa Nardelli, M. O. Myreen, "x86-TSO: A Rigorous and Usable Programmer's Model
// for x86 Multiprocessors", CACM 53(7), 2010; Intel SDM vol. 3A §8.2.2: "Reads may be reordered
// with older writes to different locations but not with older writes to the same location").
//
// What it does (`[coherence] store_buffer` entries per CPU; 0: none, every store waits for
// its line as a load does):
//   * A plain store (Memory::store: WRITE_ONCE, smp_store_release, this_cpu_write) enters the
//     CPU's buffer and the CPU goes on at once. The buffer commits its entries in program
//     order, one at a time. A store may commit no earlier than C.l1_hit after it issued; its
//     request for the line (its RFO, below) leaves then, or when it moves up among the first
//     C.fill_buffers entries. It becomes visible when it is the head (the entry before it has
//     completed) and its line has arrived owned, a transfer after the RFO left (a hit: C.l1_hit):
//     its write is reserved on the line then (coherence_protocol.h), as a transaction that began
//     when the RFO left, and it completes C.l1_hit later, its write into the L1 (later if
//     others reserved the line meanwhile), so a hit another CPU began on the old value has
//     ended and that CPU is asleep on the line when the write wakes it. Until the reservation
//     every other CPU reads the old value. Under the checker the wait before the head may
//     leave is perturbed (hw::perturbed_store_commit): a store commits only once it retires.
//   * A load by the same CPU of a variable with a buffered store returns the newest such value
//     (store-to-load forwarding; stores of some bytes only, Memory::store_bytes, merged over the
//     cached value) in C.l1_hit; a load of any other variable goes to the cache at
//     once, ahead of the older buffered stores: the store->load reordering that smp_mb()
//     exists to forbid.
//   * A locked read-modify-write (xchg, cmpxchg, fetch_add, set_bit, ...) waits until every
//     older store has completed and then runs on its line (SDM §8.2.2: "Locked instructions
//     have a total order"; §8.1.2: they wait for all previous stores to complete). So does a
//     fence (Memory::fence: mfence, smp_mb(), a serializing instruction such as MOV to CR3,
//     INVLPG or IRET; SDM §8.3: before a serializing instruction completes, "all buffered
//     writes are drained to memory").
//   * A store that finds the buffer full waits until an entry leaves it.
//   * A store's request for its line (its RFO) goes out before the store reaches the head: each
//     of the first C.fill_buffers entries has its RFO in flight from the moment it may commit
//     (a later one from when an entry leaves and it moves up among them). Its line then arrives
//     while older stores are still committing; the store still becomes visible only at the head,
//     in program order. So k missing stores drain in about k / C.fill_buffers transfers, not k
//     (T. Downs, "Random Writes and Microcode Oh My", 2019: on Skylake, stores to lines that miss
//     to L3 run at one per 5-6 cycles against a ~35-cycle load latency, and to DRAM one per
//     15-20 cycles against ~200). With one fill buffer (the toy machines) the RFO leaves at the
//     head, as the store did before.
// Not modeled: the transfer an early RFO takes is the one the line needs when its store reaches
// the head (the holders then, not when the RFO left); a line an early RFO won and another CPU
// took back meanwhile costs the reservation's serialization behind that CPU's transaction, not a
// second RFO; a load wider than a buffered byte store gets the merge at once (a real core fails
// to forward it and waits for the store to commit); loads read ahead (read_ahead.h) and RFOs each get C.fill_buffers
// (the core shares them); arm64's weaker ordering of stores among themselves (the buffer is FIFO on every arch: an
// arm64 machine gets the TSO subset of its reorderings).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/coherence/coherence_protocol.h"
#include "hw/coherence/sim_var.h"
#include "sim/engine.h"
#include "sim/process.h"
#include "sim/signal.h"

namespace ipisim::hw {

class AccessBase;

class StoreBuffers {
public:
    // One buffer of `entries` (>= 1) per CPU of the protocol's topology.
    StoreBuffers(sim::Engine& eng, CoherenceProtocol& protocol, uint32_t entries);
    StoreBuffers(const StoreBuffers&) = delete;
    StoreBuffers& operator=(const StoreBuffers&) = delete;

    [[nodiscard]] bool empty(CpuId cpu) const { return cpus_[cpu].empty(); }
    [[nodiscard]] size_t size(CpuId cpu) const { return cpus_[cpu].size(); }
    [[nodiscard]] uint32_t capacity() const { return capacity_; }

    // Store-to-load forwarding: true, with the newest buffered value of `v`, when `cpu` has a
    // store to it in its buffer.
    bool forward(CpuId cpu, const SimVar& v, uint64_t& value) const;

    // A store by `cpu`: buffered (true), or false when the buffer is full; then call
    // push_full_store from await_suspend, and the process is woken once the store is in.
    // `also`: a signal to notify with the line's when the store completes (nullptr: none).
    bool try_push_store(CpuId cpu, SimVar& v, uint64_t value, uint64_t mask, sim::Signal* also);
    void push_full_store(CpuId cpu, SimVar& v, uint64_t value, uint64_t mask, sim::Signal* also, sim::Process* proc,
                         uint32_t epoch);
    // A locked RMW behind buffered stores: the buffer runs `access` (AccessBase::perform) once
    // every older store has completed, and wakes `proc` when the RMW's own wait ends.
    void push_rmw(CpuId cpu, AccessBase* access, sim::Process* proc, uint32_t epoch);
    // A fence: wakes `proc` once every older store has completed.
    void push_fence(CpuId cpu, sim::Process* proc, uint32_t epoch);

private:
    enum class Kind : uint8_t { store, rmw, fence };
    struct Entry {
        SimVar* var = nullptr;         // store
        uint64_t value = 0;            // store
        uint64_t mask = 0;             // store: the bytes it writes
        AccessBase* access = nullptr;  // rmw
        sim::Signal* also = nullptr;   // store: notified with its line
        sim::Process* proc = nullptr;  // rmw, fence, a store that waits for room
        uint32_t epoch = 0;
        sim::Picos ready;                    // earliest commit (a store: issue + C.l1_hit)
        sim::Picos rfo = sim::Picos::max();  // a store: when its RFO left (max: not yet)
        Kind kind = Kind::store;
    };
    // The head's progress: waiting to leave; a store whose request is out and whose write is
    // reserved at `reserve_at`; reserved (or an RMW or fence begun), complete at `done`.
    enum class Phase : uint8_t { waiting, requested, reserved };
    // The FIFO is q[head..]: a vector allocates nothing while a CPU never stores (a deque
    // would allocate a block per CPU, ~0.6 KB each at 4096 CPUs), and is reset when it empties.
    struct PerCpu {
        std::vector<Entry> q;
        size_t head = 0;
        sim::Picos left;        // requested: when the head's RFO left
        sim::Picos reserve_at;  // requested: when its write is reserved
        sim::Picos estimated;   // requested: the transfer reserve_at was computed with
        sim::Picos done;        // reserved: when the head completes
        Phase phase = Phase::waiting;
        bool event_pending = false;  // an on_step event is scheduled

        [[nodiscard]] bool empty() const { return head == q.size(); }
        [[nodiscard]] size_t size() const { return q.size() - head; }
        Entry& front() { return q[head]; }
        Entry& at(size_t i) { return q[head + i]; }
        void pop_front() {
            if (++head == q.size()) {
                q.clear();
                head = 0;
            } else if (head >= 64 && 2 * head >= q.size()) {  // never empty for long: compact
                q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(head));
                head = 0;
            }
        }
    };

    static void on_step(void* obj, uint32_t cpu);
    void push(CpuId cpu, Entry e);
    Entry store_entry(SimVar& v, uint64_t value, uint64_t mask, sim::Signal* also, sim::Process* proc,
                      uint32_t epoch) const;
    // Commits what can be committed now, then schedules the next step.
    void step(CpuId cpu);
    void start_store(PerCpu& c, CpuId cpu);
    void kick(CpuId cpu);
    void wake(sim::Process* proc, uint32_t epoch, sim::Picos at);

    sim::Engine& eng_;
    CoherenceProtocol& protocol_;
    uint32_t capacity_;
    uint32_t rfo_window_;  // the first rfo_window_ entries have their RFO in flight: C.fill_buffers
    std::vector<PerCpu> cpus_;
};

// co_await waits until every store `cpu` buffered before it has completed (store_buffer.h):
// mfence, smp_mb(), and the drain of a serializing instruction. Free when the buffer is empty
// or the machine has none.
class [[nodiscard]] Fence {
public:
    Fence(StoreBuffers* sb, CpuId cpu) : sb_(sb), cpu_(cpu) {}
    IPISIM_INLINE bool await_ready() const { return sb_ == nullptr || sb_->empty(cpu_); }
    void await_suspend(std::coroutine_handle<>) {
        proc_ = sim::Process::current();
        proc_->mask();
        sb_->push_fence(cpu_, proc_, proc_->begin_wait(nullptr));
    }
    void await_resume() {
        if (proc_ != nullptr) proc_->unmask();  // pending interrupts stay pending
    }

private:
    StoreBuffers* sb_;
    sim::Process* proc_ = nullptr;
    CpuId cpu_;
};

// Event tags of the buffers' commit steps: base + CPU.
inline constexpr uint32_t kStoreBufferTagBase = 0x5B00'0000;

}  // namespace ipisim::hw
