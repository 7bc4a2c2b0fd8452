// The coherence protocol: what an access to a cache line costs, and how it serializes.
//
// Cost rules (C = the coherence spec of the machine, d(a, b) = topology distance class):
//   * Load by a CPU holding a valid copy (owner or sharer): C.l1_hit. Not serialized.
//   * Store/RMW by the exclusive owner (the only holder): C.l1_hit. Not serialized.
//   * Load miss: if the line is cached, the owner supplies it: leg(requester, owner); the
//     requester becomes a sharer and the owner keeps ownership (MOESI O state). If the line is
//     cached nowhere, the home memory supplies it: C.memory_local when the home node is in the
//     requester's package, else C.memory_remote; the requester becomes the owner (E state).
//   * Store/RMW miss: every other holder is invalidated and the owner (if any other) supplies
//     the data; these legs run in parallel, so the cost is the max of leg(requester, h) over
//     the other holders h (an upgrade by a sharer pays only the invalidations). Cached nowhere:
//     memory cost as for a load. The requester becomes the owner and only holder.
//   * leg(r, h) = C.transfer[d(r, h)], plus C.remote_home_extra when the transfer leaves the
//     L3 domain (d > same_l3) and the line's home node is in another package than h: the
//     request then goes through the remote home directory (Milan cross-CCD 108 -> 200 ns,
//     Skylake-SP cross-socket 112 writer-homed -> 176 ns reader-homed). Inside one L3 domain
//     the L3 resolves the transfer itself and the home does not matter.
//   * Serialization: a miss is a transaction reserved at request time, in request order (FIFO
//     for equal times). It starts at max(now, busy_until), completes at start + cost, and
//     busy_until becomes completion + C.line_occupancy. So N CPUs hammering one line queue up,
//     each paying its transfer from the previous requester, which owns the line by then.
//   * Except a load miss on a line that is already shared (the owner and at least one sharer
//     hold it): no modified copy has to be snooped and handed over, so the home serves such
//     reads back to back. The load still starts at max(now, busy_until) and completes at start +
//     leg(requester, owner), but busy_until becomes start + C.line_occupancy. N spinners that
//     re-read a line after a write thus wait for the first reader's snoop and then one
//     occupancy each, not one whole transfer each (before this rule, the 49 waiters polling a
//     RAR action line at 50 threads held each SUCCESS store of its microcode for ~3 us).
//     A transaction reserved after such reads completes no earlier than they do: a write's
//     invalidation reaches those readers after their data, so a spinner that loaded the old
//     value is asleep on the line before the write completes and wakes it (without this a
//     write could overtake a slower read and notify before the reader slept: a lost wake-up).
//   * Linearization: the line state and the variable's value change when the transaction is
//     reserved (the reservation order is the line's total order); the requester resumes, and a
//     write wakes the line's spinners, when it completes. Hits do not look at busy_until: a
//     transaction queued by another CPU that would conflict with a hit has already taken the
//     hitting CPU's copy away at its reservation, so a CPU that still holds a copy is ordered
//     after nothing pending that changes the value.
//   * Fills in flight (memory-level parallelism): besides the one access it waits on, a CPU
//     may have read misses outstanding that its out-of-order window issued ahead of program
//     order (prefetch_read, up to C.fill_buffers - 1 of them; hw/coherence/read_ahead.h). Such
//     a read is reserved like any other (the CPU becomes a holder then); an access by the same
//     CPU to that line before the data is back is a hit that waits for the fill (the load
//     merges into the fill buffer), and a write by it queues behind the read on the line. A
//     write by another CPU meanwhile invalidates the copy as usual, so the CPU's access in
//     program order misses again and sees the new value (the memory-ordering machine clear
//     of an x86 core whose early load was snooped).
#pragma once

#include <vector>

#include "hw/coherence/cache_line.h"
#include "hw/machine.h"
#include "hw/topology.h"
#include "sim/engine.h"
#include "sim/inline.h"

namespace ipisim::hw {

class CoherenceProtocol {
public:
    CoherenceProtocol(sim::Engine& eng, const Topology& topo, const CoherenceSpec& spec);

    // Reserve a load / a write (store or RMW) by `cpu` on `line` at the current time, update
    // the line's state and statistics, and return how long the requester waits from now
    // (zero when an L1 hit is free) and whether it was a hit.
    struct Reservation {
        sim::Picos wait;
        bool hit = false;
    };
    IPISIM_INLINE Reservation reserve_read(CpuId cpu, CacheLine& line) {
        if (line.holds(cpu)) return {hit(cpu, line), true};
        return {read_miss(cpu, line), false};
    }
    IPISIM_INLINE Reservation reserve_write(CpuId cpu, CacheLine& line) {
        if (line.exclusive(cpu)) return {hit(cpu, line), true};
        return {write_miss(cpu, line), false};
    }
    // The parts of those: an access that hits (a load by a holder, a write by the exclusive
    // owner; C.l1_hit, or longer while the line's early read is still in flight), a load miss
    // and a write miss (a transaction on the line).
    sim::Picos hit(CpuId cpu, CacheLine& line);
    sim::Picos read_miss(CpuId cpu, CacheLine& line);
    sim::Picos write_miss(CpuId cpu, CacheLine& line);

    // A store leaving the store buffer (store_buffer.h): what its write would cost if reserved
    // now (no state change), and its reservation now for a request that left the buffer at
    // `issued` (<= now): the transaction starts no earlier than `issued`, so the wait returned
    // (from now) is the rest of it.
    [[nodiscard]] sim::Picos write_cost(CpuId cpu, const CacheLine& line) const;
    sim::Picos reserve_write_issued(CpuId cpu, CacheLine& line, sim::Picos issued);

    // A read miss issued ahead of program order: reserved now, the data in `cpu`'s L1 when its
    // transaction completes. Nothing to do (true) when `cpu` holds the line already; false,
    // and nothing reserved, when every fill buffer of `cpu` but the one its program-order
    // access needs is in flight.
    bool prefetch_read(CpuId cpu, CacheLine& line);
    // Read misses of `cpu` issued ahead and not yet complete.
    [[nodiscard]] uint32_t fills_in_flight(CpuId cpu);

    // One cache-to-cache leg from holder h to requester r for a line homed on `home_node`.
    [[nodiscard]] sim::Picos leg(CpuId r, CpuId h, uint32_t home_node) const;
    // The line fetched from its home memory by `cpu`.
    [[nodiscard]] sim::Picos memory(CpuId cpu, uint32_t home_node) const;

    [[nodiscard]] const Topology& topology() const { return topo_; }
    [[nodiscard]] const CoherenceSpec& spec() const { return spec_; }

private:
    // An outstanding read miss issued ahead: its line and when its data arrives.
    struct Fill {
        uint32_t line;
        sim::Picos arrival;
    };

    // Drops the fills of `cpu` that have arrived; returns how many are still in flight.
    uint32_t retire_fills(CpuId cpu);
    // A transaction requested at `from` (<= now), ending no earlier than `min_end` (>= now).
    sim::Picos serialize(CacheLine& line, sim::Picos cost, sim::Picos from, sim::Picos min_end);
    sim::Picos write_miss_from(CpuId cpu, CacheLine& line, sim::Picos from, sim::Picos min_end);
    sim::Picos pipelined(CacheLine& line, sim::Picos cost);

    sim::Engine& eng_;
    const Topology& topo_;
    const CoherenceSpec& spec_;
    uint32_t ahead_;           // fill buffers usable ahead of program order: fill_buffers - 1
    std::vector<Fill> fills_;  // cpu x ahead_ slots, the first fill_count_[cpu] in use
    std::vector<uint8_t> fill_count_;
    std::vector<sim::Picos> fills_until_;  // by cpu: the latest arrival of its fills (a hit after it waits for none)
};

}  // namespace ipisim::hw
