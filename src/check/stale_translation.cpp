#include "check/stale_translation.h"

#include <fmt/format.h>

#include "kernel/mm/mm_types.h"

namespace ipisim::check {

using kernel::mm::PAGE_SHIFT;
using kernel::mm::TLB_FLUSH_ALL;

void StaleTranslation::pte_cleared(hw::CpuId cpu, uint64_t mm_id, uint64_t vpn, sim::Picos now) {
    Page& p = pages_[key(mm_id, vpn)];
    p.zapped = now;
    p.zapper = cpu;
}

void StaleTranslation::pages_released(hw::CpuId cpu, uint64_t mm_id, uint64_t start, uint64_t end, sim::Picos now,
                                      std::optional<sim::Picos> zapped) {
    for (uint64_t vpn = start >> PAGE_SHIFT; vpn < (end + (1ULL << PAGE_SHIFT) - 1) >> PAGE_SHIFT; ++vpn) {
        auto it = pages_.find(key(mm_id, vpn));
        // Only the frames this CPU's own zap unmapped: a concurrent madvise of a page another
        // CPU already zapped finds nothing to free (the zapper frees it after its own flush).
        if (it == pages_.end() || it->second.zapper != cpu) continue;
        Page& p = it->second;
        const sim::Picos retire = zapped && *zapped < p.zapped ? *zapped : p.zapped;
        if (p.retired_valid && retire <= p.retired) continue;  // an older zap's frame: known
        p.retired_valid = true;
        p.retired = retire;
        p.released = now;
    }
}

void StaleTranslation::flush_returned(hw::CpuId cpu, uint64_t start, uint64_t end, sim::Picos began, sim::Picos now) {
    last_flush_.at(cpu) = Flush{start, end, began, now, true};
}

std::optional<Violation> StaleTranslation::user_tlb_hit(hw::CpuId cpu, uint64_t mm_id, uint64_t va, sim::Picos filled,
                                                        sim::Picos now) const {
    auto it = pages_.find(key(mm_id, va >> PAGE_SHIFT));
    if (it == pages_.end() || !it->second.retired_valid || filled > it->second.retired) return std::nullopt;
    const Page& p = it->second;
    std::string flush;
    const Flush& f = last_flush_.at(p.zapper);
    if (f.valid && f.began <= p.released && (f.end == TLB_FLUSH_ALL || (va >= f.start && va < f.end))) {
        flush = fmt::format(
            ", its flush_tlb_mm_range({}) ran from {} to {}",
            f.end == TLB_FLUSH_ALL ? std::string("TLB_FLUSH_ALL") : fmt::format("{:#x}-{:#x}", f.start, f.end),
            sim::to_string(f.began), sim::to_string(f.returned));
    } else {
        flush = ", with no flush of the page returning before the release";
    }
    return Violation{
        .kind = ViolationKind::stale_translation,
        .cpu = cpu,
        .time = now,
        .diagnosis = fmt::format(
            "cpu{} used a stale translation of mm {} address {:#x} at {}: the TLB entry was filled at {}, but cpu{} "
            "cleared the PTE at {}{}, and the page was released for reuse at {}. cpu{}'s TLB was not invalidated for "
            "it before the release: the flush protocol returned (or the page was freed) before every CPU that caches "
            "the mm had applied the flush.",
            cpu, mm_id, va, sim::to_string(now), sim::to_string(filled), p.zapper, sim::to_string(p.zapped), flush,
            sim::to_string(p.released), cpu),
    };
}

}  // namespace ipisim::check
