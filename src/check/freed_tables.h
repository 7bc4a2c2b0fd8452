// The freed-page-table rule (docs/checker.md, "Freed page tables"): when munmap frees the page
// tables of a range (freed_tables), no CPU that still has the mm loaded, lazily or not, may hold
// a translation of the range filled before the flush began. Such a CPU's paging-structure
// caches may still point into the freed tables, and even a lazy CPU, which makes no user access,
// walks them speculatively; this is why Linux sends freed-table flushes to lazy CPUs too. The TLB
// model has no separate paging-structure cache, so its entries of the range stand for it.
#pragma once

#include <optional>
#include <vector>

#include "check/violation.h"
#include "kernel/mm/mm.h"

namespace ipisim::check {

// The violation, if a CPU still caches the freed range when `releaser` frees its tables.
// cr3_pcid[c] is the PCID CPU c last wrote into CR3 (0: none seen, then the kernel's
// loaded_mm_asid is used). The CR3 PCID is the one that counts: switch_mm_irqs_off() writes CR3
// first and then loaded_mm and loaded_mm_asid one after the other, so in between loaded_mm
// already names the new mm while loaded_mm_asid still names the previous mm's ASID.
std::optional<Violation> check_freed_tables(kernel::mm::Mm& mm, const std::vector<hw::Pcid>& cr3_pcid,
                                            hw::CpuId releaser, uint64_t mm_id, uint64_t start, uint64_t end,
                                            sim::Picos flush_began, sim::Picos now);

}  // namespace ipisim::check
