// One CPU's TLB: translations tagged by PCID (x86) / ASID (arm64), each remembering when it was
// filled, in a finite LRU-replaced array. The operations here are instantaneous data-structure
// changes; the timed instructions that use them (INVLPG, CR3 write, INVPCID, a page walk) are
// in tlb_insn.h, and the broadcast ones in invlpgb.h and rar.h.
//
//   hw::Tlb tlb(cpu_id, spec.tlb.entries);
//   tlb.fill(pcid, va, now);                   // after a page walk
//   tlb.lookup(pcid, va);                      // hit: the entry, refreshed as most recently used
//   tlb.invalidate(Invalidation::page(pcid, va));
//
// Global translations (PTE G bit) match every PCID; they are removed only by invalidations
// that include globals (INVLPG, INVPCID all-context, INVLPGB/RAR with include-global).
// Capacity: one pool of `capacity` entries shared by all page sizes; a fill into a full TLB
// evicts the least recently used entry (filled or hit longest ago). Deterministic.
//
// Stale-translation checking: filled_at() and holds_filled_before() tell a checker whether
// this CPU could still translate (pcid, va) with an entry filled before a given time, without
// touching LRU order or statistics.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <optional>

#include "hw/topology.h"
#include "sim/time.h"

namespace ipisim::hw {

using Pcid = uint16_t;  // 12-bit x86 PCID or arm64 ASID

enum class PageSize : uint8_t { size_4k, size_2m, size_1g };
inline constexpr unsigned kPageShift4k = 12;
inline constexpr unsigned kPageShift2m = 21;
inline constexpr unsigned kPageShift1g = 30;
constexpr unsigned page_shift(PageSize s) {
    return s == PageSize::size_4k ? kPageShift4k : s == PageSize::size_2m ? kPageShift2m : kPageShift1g;
}

struct TlbEntry {
    Pcid pcid = 0;  // PCID the translation was filled under
    PageSize size = PageSize::size_4k;
    uint64_t vpn = 0;  // virtual address >> page_shift(size)
    bool global = false;
    sim::Picos filled;  // when the page walk that created it started
};

// What an invalidation removes: translations of one PCID or of all PCIDs, for one address
// range or all addresses; global translations only if include_global (then those of the same
// address range, whatever their PCID).
struct Invalidation {
    bool any_pcid = false;
    Pcid pcid = 0;
    bool all_addresses = true;
    uint64_t start = 0;  // first byte of the range
    uint64_t end = 0;    // one past its last byte
    bool include_global = false;

    // INVLPG: the PCID's translation of the page holding va, and a global one.
    static Invalidation page(Pcid pcid, uint64_t va);
    // INVPCID individual address: the PCID's non-global translation of va.
    static Invalidation page_nonglobal(Pcid pcid, uint64_t va);
    // Non-global translations of `nr` pages of 1 << stride_shift bytes from `start`.
    static Invalidation range(Pcid pcid, uint64_t start, uint64_t nr, unsigned stride_shift);
    // CR3 write without NOFLUSH, INVPCID single context: the PCID's non-global translations.
    static Invalidation pcid_all(Pcid pcid);
    // INVPCID all-context (include_global) / all non-global.
    static Invalidation all(bool include_global);
};

struct TlbStats {
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t fills = 0;
    uint64_t evictions = 0;
    uint64_t invalidations = 0;  // invalidate() calls (flush operations applied)
    uint64_t removed = 0;        // entries they removed
};

class Tlb {
public:
    Tlb(CpuId cpu, uint32_t capacity);
    Tlb(const Tlb&) = delete;
    Tlb& operator=(const Tlb&) = delete;

    [[nodiscard]] CpuId cpu() const { return cpu_; }
    [[nodiscard]] uint32_t capacity() const { return capacity_; }
    [[nodiscard]] size_t size() const { return map_.size(); }
    [[nodiscard]] const TlbStats& stats() const { return stats_; }

    // A translation of va usable under pcid (its own, else a global one; smaller pages
    // first), made most recently used; nullptr on a miss. Counts a hit or a miss.
    const TlbEntry* lookup(Pcid pcid, uint64_t va);
    // Inserts (or refreshes) the translation of the page holding va, filled at `now`.
    void fill(Pcid pcid, uint64_t va, sim::Picos now, PageSize size = PageSize::size_4k, bool global = false);
    // Removes what `inv` describes; returns how many entries.
    size_t invalidate(const Invalidation& inv);

    // --- observation (no LRU or statistics effect) ---
    [[nodiscard]] const TlbEntry* find(Pcid pcid, uint64_t va) const;
    [[nodiscard]] std::optional<sim::Picos> filled_at(Pcid pcid, uint64_t va) const;
    // The CPU holds a translation for (pcid, va) filled strictly before t.
    [[nodiscard]] bool holds_filled_before(Pcid pcid, uint64_t va, sim::Picos t) const;
    // Calls f(const TlbEntry&) for every entry, ordered by (PCID, globals last; size; vpn).
    template <class F>
    void for_each(F&& f) const {
        for (const auto& [key, slot] : map_) f(slot.entry);
    }

private:
    // Globals are keyed under kGlobalKey (above every 12-bit PCID) so that one lookup finds
    // them whatever the PCID.
    static constexpr uint32_t kGlobalKey = 0x10000;
    struct Key {
        uint32_t pcid;
        PageSize size;
        uint64_t vpn;
        auto operator<=>(const Key&) const = default;
    };
    struct Slot {
        TlbEntry entry;
        std::list<Key>::iterator lru;
    };
    using Map = std::map<Key, Slot>;

    [[nodiscard]] Map::const_iterator find_key(Pcid pcid, uint64_t va) const;
    Map::iterator erase(Map::iterator it);
    size_t remove_keyed(uint32_t key_pcid, const Invalidation& inv);

    CpuId cpu_;
    uint32_t capacity_;
    Map map_;
    std::list<Key> lru_;  // front: most recently used
    TlbStats stats_;
};

}  // namespace ipisim::hw
