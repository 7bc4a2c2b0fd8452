// A simulated cache line: which CPUs hold a copy (owner + sharers), its home NUMA node, when
// the last transaction reserved on it completes, the signal spinners sleep on, and statistics.
//
// State, in MOESI terms: `owner` is the CPU whose cache supplies the line (M, E or O); the
// holders are every CPU with a valid copy, the owner included (O/S copies). Invariants: an
// uncached line has no owner and no holders; a cached line has an owner, and the owner holds
// it. The state changes when a transaction is *reserved* (see coherence_protocol.h), not when
// it completes, so it always describes the line after every transaction already queued on it.
// Lines are never evicted.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "hw/coherence/holder_set.h"
#include "hw/topology.h"
#include "sim/signal.h"
#include "sim/time.h"

namespace ipisim::hw {

inline constexpr CpuId kNoCpu = std::numeric_limits<CpuId>::max();

struct LineStats {
    uint64_t hits = 0;                                   // accesses served by the own L1 (not serialized)
    uint64_t transactions = 0;                           // misses: serialized on the line
    uint64_t memory_fetches = 0;                         // transactions served by the home memory
    uint64_t upgrades = 0;                               // writes by a CPU that already held a shared copy
    uint64_t invalidations = 0;                          // copies invalidated by writes
    std::array<uint64_t, kDistanceClasses> transfers{};  // data sent by the owner, by distance
    sim::Picos queueing;  // sum over transactions of (start - request): waiting for the line
    sim::Picos busy;      // sum over transactions of their length

    LineStats& operator+=(const LineStats& o);
};

// What a line needs only on misses and in reports, kept out of the line itself.
struct LineCold {
    LineStats stats;  // hits are counted in the line
    std::string name;
    sim::Picos pipelined_reads_end;  // completion of the latest pipelined read (coherence_protocol.h)
};

// One simulated line in 128 bytes: the state every access reads (busy_until, hits, owner,
// holders) fills the first 64, the spinners' signal and pointers the second.
class alignas(64) CacheLine {
public:
    // `pool` lends the holder bitsets of widely shared lines (holder_set.h); `cold` holds the
    // name and miss statistics. Both must outlive the line.
    CacheLine(uint32_t id, uint32_t home_node, HolderPool& pool, LineCold& cold);
    CacheLine(const CacheLine&) = delete;
    CacheLine& operator=(const CacheLine&) = delete;

    [[nodiscard]] uint32_t id() const { return id_; }
    [[nodiscard]] const std::string& name() const { return cold_->name; }
    [[nodiscard]] uint32_t home_node() const { return home_node_; }

    // kNoCpu while the line is cached nowhere.
    [[nodiscard]] CpuId owner() const { return owner_; }
    [[nodiscard]] bool holds(CpuId cpu) const { return holders_.contains(cpu); }
    // The CPU may write without a transaction: it owns the only copy.
    [[nodiscard]] bool exclusive(CpuId cpu) const { return owner_ == cpu && holders_.count() == 1; }
    [[nodiscard]] uint32_t holder_count() const { return holders_.count(); }
    // Calls f(cpu) for every holder (in a deterministic order, not necessarily ascending).
    template <class F>
    void for_each_holder(F&& f) const {
        holders_.for_each(f, pool_->words());
    }

    // When the last transaction reserved on the line completes (plus line occupancy).
    [[nodiscard]] sim::Picos busy_until() const { return busy_until_; }
    // Notified when a write (store or RMW) to any variable of the line completes.
    [[nodiscard]] sim::Signal& written() { return written_; }
    [[nodiscard]] LineStats stats() const {
        LineStats s = cold_->stats;
        s.hits = hits_;
        return s;
    }
    [[nodiscard]] uint32_t var_count() const { return vars_; }
    // Claims the next 8-byte slot; returns its byte offset (std::length_error past 8).
    uint32_t claim_slot();

    // Setup only (no time, no statistics): `cpu` becomes the exclusive owner, as if it had
    // just written the line (e.g. a per-CPU variable its CPU initialised).
    void prime(CpuId cpu) { make_exclusive(cpu); }

private:
    friend class CoherenceProtocol;
    // Protocol state changes, made by CoherenceProtocol at reservation time.
    void add_holder(CpuId cpu) { holders_.add(cpu, *pool_); }
    // `cpu` becomes the owner and only holder; returns how many other copies were invalidated.
    uint32_t make_exclusive(CpuId cpu) {
        const uint32_t others = holders_.count() - (holders_.contains(cpu) ? 1U : 0U);
        holders_.make_only(cpu, *pool_);
        owner_ = cpu;
        return others;
    }
    void set_owner(CpuId cpu) { owner_ = cpu; }
    void set_busy_until(sim::Picos t) { busy_until_ = t; }
    void count_hit() { ++hits_; }
    LineStats& miss_stats() { return cold_->stats; }
    sim::Picos& pipelined_reads_end() { return cold_->pipelined_reads_end; }

    // Hot: the first 64 bytes.
    sim::Picos busy_until_;
    uint64_t hits_ = 0;
    CpuId owner_ = kNoCpu;
    uint32_t home_node_;
    HolderSet holders_;
    uint32_t id_;
    uint32_t vars_ = 0;
    // Second 64 bytes.
    HolderPool* pool_;
    LineCold* cold_;
    sim::Signal written_;
};
static_assert(sizeof(CacheLine) == 128);

}  // namespace ipisim::hw
