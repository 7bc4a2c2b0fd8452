// mmap and munmap of anonymous regions (mm/mmap.c, mm/vma.c), under mmap_lock for write; the
// VMA merges and splits they make are in vma.cpp.
// Addresses are chosen top-down from mmap_base (the lowest gap below the highest mapping that
// fits, as get_unmapped_area does), so a region unmapped and mapped again reuses its place.
// munmap downgrades to a read lock before unmap_region (do_vmi_align_munmap), zaps the PTEs,
// frees the PTE pages no other VMA shares (freed_tables), and flushes the TLB for the range.
#include <stdexcept>

#include "hw/check_hooks.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"

namespace ipisim::kernel::mm {

namespace {

uint64_t get_unmapped_area(const MmStruct& mm, uint64_t len) {
    uint64_t top = mm.mmap_base;
    if (mm.lazy_unmapped.empty()) {
        for (auto it = mm.vmas.rbegin(); it != mm.vmas.rend(); ++it) {
            if (it->second->end <= top && top - it->second->end >= len) break;
            top = std::min(top, it->second->start);
        }
        return top - len;
    }
    // With ranges a lazy flush still holds: they count as mapped.
    std::map<uint64_t, uint64_t> used(mm.lazy_unmapped);
    for (const auto& [start, vma] : mm.vmas) used[start] = vma->end;
    for (auto it = used.rbegin(); it != used.rend(); ++it) {
        if (it->second <= top && top - it->second >= len) break;
        top = std::min(top, it->first);
    }
    return top - len;
}

bool shares_pmd(const MmStruct& mm, uint64_t pmd) {
    const uint64_t lo = pmd << PMD_SHIFT;
    const uint64_t hi = lo + (1ULL << PMD_SHIFT);
    auto it = mm.vmas.lower_bound(hi);
    if (it == mm.vmas.begin()) return false;
    --it;
    return it->second->end > lo;
}
}  // namespace

sim::Task<uint64_t> Mm::vm_mmap(hw::Cpu& cpu, MmStruct& mm, uint64_t len) {
    static const uint32_t label = hw::profile_label("vm_mmap_pgoff");
    auto scope = cpu.function(label, hw::Activity::kernel);
    ++stats_.mmap;
    co_await cpu.compute(platform().spec().cpu.syscall);
    co_await mm.mmap_lock->down_write(cpu);
    co_await mmap_write_lock_seqcount(cpu, mm);
    co_await cpu.compute_cycles(costs::do_mmap);
    const uint64_t addr = get_unmapped_area(mm, len);
    co_await vma_merge_new_range(cpu, mm, addr, addr + len);
    // mmap_write_unlock(): vma_end_write_all() bumps mm_lock_seq.
    co_await vma_end_write_all(cpu, mm);
    co_await mm.mmap_lock->up_write(cpu);
    co_return addr;
}

void Mm::populate_before_start(MmStruct& mm, uint64_t va) {
    const uint64_t vpn = va >> PAGE_SHIFT;
    if (mm.ptes.count(vpn) != 0) return;
    mm.pte_tables.insert(va >> PMD_SHIFT);
    mm.ptes[vpn] = alloc_folio();
}

uint64_t Mm::mmap_before_start(MmStruct& mm, uint64_t len) {
    const uint64_t start = get_unmapped_area(mm, len);
    auto [prev, next] = merge_neighbours(mm, start, start + len);
    vma_merge_apply(mm, prev, next, start, start + len);
    return start;
}

sim::Task<> Mm::vm_munmap(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t len) {
    static const uint32_t label = hw::profile_label("vm_munmap");
    auto scope = cpu.function(label, hw::Activity::kernel);
    ++stats_.munmap;
    const uint64_t end = start + len;
    co_await cpu.compute(platform().spec().cpu.syscall);
    co_await mm.mmap_lock->down_write(cpu);
    co_await mmap_write_lock_seqcount(cpu, mm);
    co_await vms_gather_munmap_vmas(cpu, mm, start, end);
    // vma_iter_clear_gfp, accounting, vms_complete_munmap_vmas up to the downgrade: the
    // pieces stay write-locked meanwhile.
    co_await cpu.compute_cycles(costs::do_munmap);
    // mmap_write_downgrade(): vma_end_write_all() bumps mm_lock_seq.
    co_await vma_end_write_all(cpu, mm);
    co_await mm.mmap_lock->downgrade_write(cpu);
    // unmap_region(): lru_add_drain (variant), unmap_vmas, free_pgtables, tlb_finish_mmu.
    if (madvise_lru_add_drain_) co_await lru_->lru_add_drain(cpu);
    co_await tlb_gather_mmu(cpu, mm);
    TlbRelease release;
    release.mm = &mm;
    release.start = start;
    release.end = end;
    release.zapper = cpu.id();
    release.cleared = co_await zap_pte_range(cpu, mm, start, end, release.folios, release.zapped);
    for (uint64_t pmd = start >> PMD_SHIFT; pmd <= (end - 1) >> PMD_SHIFT; ++pmd) {
        if (mm.pte_tables.count(pmd) == 0 || shares_pmd(mm, pmd)) continue;
        mm.pte_tables.erase(pmd);
        release.freed_tables = true;
        co_await cpu.compute_cycles(costs::free_pte_table);
    }
    if (protocol_->defers_release()) {
        // The range stays out of get_unmapped_area() until the release.
        release.unmapped_va = true;
        mm.lazy_unmapped[start] = end;
    }
    co_await tlb_finish_mmu(cpu, std::move(release));
    co_await mm.mmap_lock->up_read(cpu);
}

}  // namespace ipisim::kernel::mm
