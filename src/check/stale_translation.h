// The stale-translation monitor (docs/checker.md, "Stale translation"): a user access must not
// be translated by a TLB entry whose page has been unmapped and released since the entry was
// filled.
//
// The rule, protocol-agnostic and right for lazy protocols: for every (address space, page) the
// monitor keeps `zapped`, the time its PTE was last cleared, and `retired`, the latest zap time
// whose frame has since been released for reuse (pages_released after the flush, by the CPU
// whose zap cleared it: a concurrent zap of an already cleared PTE frees nothing). A use by an
// entry filled at f is a violation iff f <= retired: the entry predates an unmap whose frame is
// already free, so the access reads or writes a page that may belong to someone else. An eager
// protocol releases after its flush returned; a lazy one (LATR) releases only after every target
// applied the flush; neither is blamed for entries that are stale but whose page is not yet
// released (lazy TLB CPUs, whose switch back flushes them).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "check/violation.h"

namespace ipisim::check {

class StaleTranslation {
public:
    explicit StaleTranslation(uint32_t nr_cpus) : last_flush_(nr_cpus) {}

    void pte_cleared(hw::CpuId cpu, uint64_t mm_id, uint64_t vpn, sim::Picos now);
    // `zapped`: when the zap whose frames are released cleared them (none: the CPU's latest zap
    // of each page). A lazy protocol may release an older zap's frame after the same CPU zapped
    // the page again: only translations filled up to the older zap are then stale.
    void pages_released(hw::CpuId cpu, uint64_t mm_id, uint64_t start, uint64_t end, sim::Picos now,
                        std::optional<sim::Picos> zapped = std::nullopt);
    void flush_returned(hw::CpuId cpu, uint64_t start, uint64_t end, sim::Picos began, sim::Picos now);
    // When CPU `cpu`'s last flush_tlb_mm_range began, if it has returned one.
    [[nodiscard]] std::optional<sim::Picos> last_flush_began(hw::CpuId cpu) const {
        const Flush& f = last_flush_.at(cpu);
        return f.valid ? std::optional<sim::Picos>(f.began) : std::nullopt;
    }
    // The violation this use is, if any.
    [[nodiscard]] std::optional<Violation> user_tlb_hit(hw::CpuId cpu, uint64_t mm_id, uint64_t va, sim::Picos filled,
                                                        sim::Picos now) const;

private:
    struct Page {
        sim::Picos zapped;
        hw::CpuId zapper = 0;
        bool retired_valid = false;
        sim::Picos retired;   // the zap time whose frame was released
        sim::Picos released;  // when
    };
    struct Flush {
        uint64_t start = 0;
        uint64_t end = 0;
        sim::Picos began;
        sim::Picos returned;
        bool valid = false;
    };
    static uint64_t key(uint64_t mm_id, uint64_t vpn) { return mm_id << 40 | (vpn & ((1ULL << 40) - 1)); }

    std::unordered_map<uint64_t, Page> pages_;
    std::vector<Flush> last_flush_;  // per initiating CPU
};

}  // namespace ipisim::check
