#include "check/freed_tables.h"

#include <fmt/format.h>

namespace ipisim::check {

std::optional<Violation> check_freed_tables(kernel::mm::Mm& mm, const std::vector<hw::Pcid>& cr3_pcid,
                                            hw::CpuId releaser, uint64_t mm_id, uint64_t start, uint64_t end,
                                            sim::Picos flush_began, sim::Picos now) {
    for (hw::CpuId c = 0; c < mm.nr_cpus(); ++c) {
        if (mm.loaded_mm(c) != mm_id) continue;
        const hw::Tlb& tlb = mm.tlb(c);
        const hw::Pcid pcid = c < cr3_pcid.size() && cr3_pcid[c] != 0 ? cr3_pcid[c] : mm.loaded_pcid(c);
        for (uint64_t va = start; va < end; va += kernel::mm::PAGE_SIZE) {
            if (!tlb.holds_filled_before(pcid, va, flush_began)) continue;
            const bool lazy = mm.tlbstate(c).is_lazy->peek() != 0;
            return Violation{
                .kind = ViolationKind::stale_translation,
                .cpu = c,
                .time = now,
                .diagnosis = fmt::format(
                    "cpu{} still caches mm {} address {:#x} ({}) when cpu{} frees the page tables of {:#x}-{:#x} at "
                    "{}: "
                    "its flush, begun at {}, has not been applied on cpu{}, whose paging-structure caches may still "
                    "point into the freed tables{}.",
                    c, mm_id, va, lazy ? "lazy TLB: mm still loaded" : "mm loaded", releaser, start, end,
                    sim::to_string(now), sim::to_string(flush_began), c,
                    lazy ? " (a freed-table flush must reach lazy CPUs too)" : ""),
            };
        }
    }
    return std::nullopt;
}

}  // namespace ipisim::check
