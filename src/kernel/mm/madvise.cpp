// madvise(MADV_DONTNEED) (mm/madvise.c) and the zap it does (mm/memory.c, mm/mmu_gather.c):
// under mmap_lock for read, or from 6.17 the per-VMA lock when the range lies in one VMA
// ([kernel] madvise_lock; mmap_lock when lock_vma_under_rcu fails), optionally lru_add_drain(),
// clear the PTEs (each PTE page's under its split lock), flush the TLB for the range
// (tlb_finish_mmu -> tlb_flush -> flush_tlb_mm_range, freed_tables = false; the whole mm when
// another thread's zap is open, mmu_gather.cpp), then drop the gathered folios' references
// (freeing them, through the LRU when they are on it).
#include <algorithm>

#include "hw/check_hooks.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"

namespace ipisim::kernel::mm {

sim::Task<uint64_t> Mm::zap_pte_range(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end,
                                      std::vector<Folio*>& gathered, sim::Picos& zapped) {
    // zap_pmd_range(): one zap_pte_range() per PTE page, each under that page's lock
    // (pte_offset_map_lock); the TLB flush comes after the unlock (tlb_finish_mmu).
    uint64_t cleared = 0;
    bool first = true;
    zapped = cpu.now();
    for (uint64_t pmd = start >> PMD_SHIFT; pmd <= (end - 1) >> PMD_SHIFT; ++pmd) {
        if (mm.pte_tables.count(pmd) == 0) continue;  // pmd_none: nothing mapped below
        const uint64_t lo = std::max(start, pmd << PMD_SHIFT);
        const uint64_t hi = std::min(end, (pmd + 1) << PMD_SHIFT);
        RawSpinLock& ptl = pte_lockptr(mm, pmd);
        co_await ptl.raw_spin_lock(cpu);
        if (first) zapped = cpu.now();
        first = false;
        uint64_t here = 0;
        auto it = mm.ptes.lower_bound(lo >> PAGE_SHIFT);
        while (it != mm.ptes.end() && it->first < (hi >> PAGE_SHIFT)) {
            ++here;
            IPISIM_CHECK_HOOK(pte_cleared(cpu.id(), mm.id, it->first));
            if (!it->second->zero) gathered.push_back(it->second);  // vm_normal_page: not the zero page
            it = mm.ptes.erase(it);
        }
        co_await cpu.compute_cycles(costs::zap_pte * here);
        co_await ptl.raw_spin_unlock(cpu);
        cleared += here;
    }
    co_return cleared;
}

sim::Task<> Mm::do_madvise_dontneed(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t len) {
    static const uint32_t label = hw::profile_label("do_madvise");
    auto scope = cpu.function(label, hw::Activity::kernel);
    ++stats_.madvise;
    co_await cpu.compute(platform().spec().cpu.syscall);
    co_await cpu.compute_cycles(costs::do_madvise);
    // madvise_lock(): MADVISE_VMA_READ_LOCK (try_vma_read_lock) or mmap_read_lock.
    if (madvise_lock_ == MmLock::vma_lock) {
        if (Vma* vma = co_await lock_vma_under_rcu(cpu, mm, start, start + len); vma != nullptr) {
            co_await madvise_dontneed_single_vma(cpu, mm, start, len);
            co_await vma_end_read(cpu, *vma);
            co_return;
        }
    }
    co_await mm.mmap_lock->down_read(cpu);
    co_await madvise_dontneed_single_vma(cpu, mm, start, len);
    co_await mm.mmap_lock->up_read(cpu);
}

sim::Task<> Mm::madvise_dontneed_single_vma(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t len) {
    static const uint32_t label_zap = hw::profile_label("zap_page_range_single");
    auto zap = cpu.function(label_zap);
    if (madvise_lru_add_drain_) co_await lru_->lru_add_drain(cpu);
    co_await cpu.compute_cycles(costs::zap_page_range);
    co_await tlb_gather_mmu(cpu, mm);
    TlbRelease release;  // what tlb_finish_mmu flushes and frees
    release.mm = &mm;
    release.start = start;
    release.end = start + len;
    release.zapper = cpu.id();
    release.cleared = co_await zap_pte_range(cpu, mm, start, start + len, release.folios, release.zapped);
    co_await tlb_finish_mmu(cpu, std::move(release));
}

}  // namespace ipisim::kernel::mm
