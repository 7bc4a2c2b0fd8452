// The mmu_gather's open and close (mm/mmu_gather.c) around every zap of user pages: madvise's
// and munmap's. tlb_gather_mmu() counts the gather in mm->tlb_flush_pending (inc_tlb_flush_pending,
// an atomic_inc; include/linux/mm_types.h); tlb_finish_mmu() flushes and frees what the zap
// gathered and then takes the count back (dec_tlb_flush_pending). If another thread of the mm
// has a gather open at the flush (mm_tlb_flush_nested(): the count above 1), it may have
// changed PTEs of the same range whose flush it has not done yet, so tlb_finish_mmu() flushes
// the whole mm instead of its range: tlb->fullmm = 1, __tlb_reset_range() and
// tlb->freed_tables = 1 (since v5.2, 7a30df49f63a "mm: mmu_gather: remove __tlb_reset_range()
// for force flush"; "On x86 non-fullmm doesn't yield significant difference against fullmm").
// On x86, tlb_flush() then calls flush_tlb_mm_range(mm, 0, TLB_FLUSH_ALL, ..., freed_tables):
// a full flush of the mm's PCID on every CPU of mm_cpumask, lazy ones included
// (native_flush_tlb_multi sends to all when freed_tables). docs/mechanisms.md §2.11.
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"

namespace ipisim::kernel::mm {

sim::Task<> Mm::tlb_gather_mmu(hw::Cpu& cpu, MmStruct& mm) {
    co_await mem_.fetch_add(cpu.id(), *mm.tlb_flush_pending, 1);  // inc_tlb_flush_pending()
}

sim::Task<> Mm::tlb_finish_mmu(hw::Cpu& cpu, TlbRelease r) {
    MmStruct& mm = *r.mm;
    co_await cpu.compute_cycles(costs::tlb_finish_mmu);
    // mm_tlb_flush_nested(): atomic_read(&mm->tlb_flush_pending) > 1.
    const bool nested = co_await mem_.load(cpu.id(), *mm.tlb_flush_pending) > 1;
    if (nested) {
        ++stats_.nested_flushes;
        co_await flush_tlb_mm_range(cpu, mm, 0, TLB_FLUSH_ALL, PAGE_SHIFT, /*freed_tables=*/true);
    } else if (r.cleared != 0 || r.freed_tables) {  // tlb_flush_mmu_tlbonly(): something to flush
        co_await flush_tlb_mm_range(cpu, mm, r.start, r.end, PAGE_SHIFT, r.freed_tables);
    }
    co_await tlb_release(cpu, std::move(r));                                 // tlb_batch_pages_flush()
    co_await mem_.fetch_add(cpu.id(), *mm.tlb_flush_pending, ~uint64_t{0});  // dec_tlb_flush_pending()
}

}  // namespace ipisim::kernel::mm
