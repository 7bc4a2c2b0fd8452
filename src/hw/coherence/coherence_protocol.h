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
//     after nothing pending that changes the value. (This assumes one access in flight per
//     CPU, which holds because accesses are masked and a CPU runs one context at a time.)
#pragma once

#include "hw/coherence/cache_line.h"
#include "hw/machine.h"
#include "hw/topology.h"
#include "sim/engine.h"

namespace ipisim::hw {

class CoherenceProtocol {
public:
    CoherenceProtocol(sim::Engine& eng, const Topology& topo, const CoherenceSpec& spec)
        : eng_(eng), topo_(topo), spec_(spec) {}

    // Reserve a load / a write (store or RMW) by `cpu` on `line` at the current time, update
    // the line's state and statistics, and return how long the requester waits from now
    // (zero when an L1 hit is free).
    sim::Picos reserve_read(CpuId cpu, CacheLine& line);
    sim::Picos reserve_write(CpuId cpu, CacheLine& line);

    // One cache-to-cache leg from holder h to requester r for a line homed on `home_node`.
    [[nodiscard]] sim::Picos leg(CpuId r, CpuId h, uint32_t home_node) const;
    // The line fetched from its home memory by `cpu`.
    [[nodiscard]] sim::Picos memory(CpuId cpu, uint32_t home_node) const;

    [[nodiscard]] const Topology& topology() const { return topo_; }
    [[nodiscard]] const CoherenceSpec& spec() const { return spec_; }

private:
    sim::Picos hit(CacheLine& line);
    sim::Picos serialize(CacheLine& line, sim::Picos cost);
    sim::Picos pipelined(CacheLine& line, sim::Picos cost);

    sim::Engine& eng_;
    const Topology& topo_;
    const CoherenceSpec& spec_;
};

}  // namespace ipisim::hw
