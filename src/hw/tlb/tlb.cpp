#include "hw/tlb/tlb.h"

#include <array>
#include <stdexcept>

#include "hw/observer.h"

namespace ipisim::hw {

namespace {

constexpr std::array<PageSize, 3> kSizes = {PageSize::size_4k, PageSize::size_2m, PageSize::size_1g};

}  // namespace

Invalidation Invalidation::page(Pcid pcid, uint64_t va) {
    Invalidation inv = page_nonglobal(pcid, va);
    inv.include_global = true;
    return inv;
}

Invalidation Invalidation::page_nonglobal(Pcid pcid, uint64_t va) {
    return range(pcid, va, 1, kPageShift4k);
}

Invalidation Invalidation::range(Pcid pcid, uint64_t start, uint64_t nr, unsigned stride_shift) {
    Invalidation inv;
    inv.pcid = pcid;
    inv.all_addresses = false;
    inv.start = start >> stride_shift << stride_shift;
    inv.end = inv.start + (nr << stride_shift);
    return inv;
}

Invalidation Invalidation::pcid_all(Pcid pcid) {
    Invalidation inv;
    inv.pcid = pcid;
    return inv;
}

Invalidation Invalidation::all(bool include_global) {
    Invalidation inv;
    inv.any_pcid = true;
    inv.include_global = include_global;
    return inv;
}

Tlb::Tlb(CpuId cpu, uint32_t capacity) : cpu_(cpu), capacity_(capacity) {
    if (capacity == 0) throw std::invalid_argument("Tlb: capacity must be at least one entry");
}

Tlb::Map::const_iterator Tlb::find_key(Pcid pcid, uint64_t va) const {
    for (const uint32_t key_pcid : {uint32_t{pcid}, kGlobalKey}) {
        for (const PageSize s : kSizes) {
            auto it = map_.find(Key{key_pcid, s, va >> page_shift(s)});
            if (it != map_.end()) return it;
        }
    }
    return map_.end();
}

const TlbEntry* Tlb::lookup(Pcid pcid, uint64_t va) {
    auto it = find_key(pcid, va);
    if (it == map_.end()) {
        ++stats_.misses;
        return nullptr;
    }
    ++stats_.hits;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return &it->second.entry;
}

void Tlb::fill(Pcid pcid, uint64_t va, sim::Picos now, PageSize size, bool global) {
    ++stats_.fills;
    const Key key{global ? kGlobalKey : uint32_t{pcid}, size, va >> page_shift(size)};
    const TlbEntry entry{pcid, size, key.vpn, global, now};
    auto it = map_.find(key);
    if (it != map_.end()) {
        it->second.entry = entry;
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        return;
    }
    if (map_.size() >= capacity_) {
        ++stats_.evictions;
        erase(map_.find(lru_.back()));
    }
    lru_.push_front(key);
    map_.emplace(key, Slot{entry, lru_.begin()});
}

Tlb::Map::iterator Tlb::erase(Map::iterator it) {
    lru_.erase(it->second.lru);
    return map_.erase(it);
}

// Removes the entries keyed under key_pcid that match inv's address criterion.
size_t Tlb::remove_keyed(uint32_t key_pcid, const Invalidation& inv) {
    size_t n = 0;
    if (inv.all_addresses) {
        auto it = map_.lower_bound(Key{key_pcid, PageSize::size_4k, 0});
        while (it != map_.end() && it->first.pcid == key_pcid) {
            it = erase(it);
            ++n;
        }
        return n;
    }
    if (inv.end <= inv.start) return 0;
    for (const PageSize s : kSizes) {
        const unsigned shift = page_shift(s);
        const uint64_t last = (inv.end - 1) >> shift;
        auto it = map_.lower_bound(Key{key_pcid, s, inv.start >> shift});
        while (it != map_.end() && it->first.pcid == key_pcid && it->first.size == s && it->first.vpn <= last) {
            it = erase(it);
            ++n;
        }
    }
    return n;
}

size_t Tlb::invalidate(const Invalidation& inv) {
    ++stats_.invalidations;
    size_t n = 0;
    if (inv.any_pcid) {
        // Every PCID present, in ascending order, skipping to the next one after each.
        auto it = map_.begin();
        while (it != map_.end() && it->first.pcid != kGlobalKey) {
            const uint32_t p = it->first.pcid;
            n += remove_keyed(p, inv);
            it = map_.lower_bound(Key{p + 1, PageSize::size_4k, 0});
        }
    } else {
        n += remove_keyed(inv.pcid, inv);
    }
    if (inv.include_global) n += remove_keyed(kGlobalKey, inv);
    stats_.removed += n;
    if (Observer* t = tracer()) t->tlb_invalidated(cpu_, inv, n);
    return n;
}

const TlbEntry* Tlb::find(Pcid pcid, uint64_t va) const {
    auto it = find_key(pcid, va);
    return it == map_.end() ? nullptr : &it->second.entry;
}

std::optional<sim::Picos> Tlb::filled_at(Pcid pcid, uint64_t va) const {
    const TlbEntry* e = find(pcid, va);
    if (e == nullptr) return std::nullopt;
    return e->filled;
}

bool Tlb::holds_filled_before(Pcid pcid, uint64_t va, sim::Picos t) const {
    // Any matching entry counts (own PCID or global, any page size), not only the one a
    // lookup would pick.
    for (const uint32_t key_pcid : {uint32_t{pcid}, kGlobalKey}) {
        for (const PageSize s : kSizes) {
            auto it = map_.find(Key{key_pcid, s, va >> page_shift(s)});
            if (it != map_.end() && it->second.entry.filled < t) return true;
        }
    }
    return false;
}

}  // namespace ipisim::hw
