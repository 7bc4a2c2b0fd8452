// User memory accesses and anonymous page faults (arch/x86/mm/fault.c, mm/memory.c): the
// TLB lookup, the page walk on a miss, and do_anonymous_page() for a write (a new zeroed page,
// added to the LRU batch) or a read (the shared zero page), each installed under the PTE page's
// split lock (pte_offset_map_lock, kernel/locking/raw_spinlock.h). Faults take the per-VMA lock
// (lock_vma_under_rcu, CONFIG_PER_VMA_LOCK since 6.4; kernel/mm/vma.cpp) unless [kernel]
// fault_lock says mmap_lock, and mmap_lock for read when the VMA lock fails.
#include <stdexcept>

#include <fmt/format.h>

#include "hw/check_hooks.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"

namespace ipisim::kernel::mm {

sim::Task<> Mm::user_access(hw::Cpu& cpu, MmStruct& mm, uint64_t va, bool write) {
    const hw::CpuId me = cpu.id();
    hw::Tlb& tlb = *tlbs_[me];
    const uint64_t vpn = va >> PAGE_SHIFT;
    for (;;) {
        const hw::Pcid pcid = loaded_pcid(me);
        auto pte = mm.ptes.find(vpn);
        const bool present = pte != mm.ptes.end() && (!write || !pte->second->zero);
        if (const hw::TlbEntry* hit = tlb.lookup(pcid, va); hit != nullptr) {
            IPISIM_CHECK_HOOK(user_tlb_hit(me, mm.id, va, hit->filled));
            // A hit with nothing mapped behind it is a stale translation a flush missed.
            if (pte == mm.ptes.end()) ++stats_.stale_tlb_hits;
            if (present || pte == mm.ptes.end()) co_return;
        }
        // Page walk: a miss fills the TLB when the PTE allows the access, else faults.
        if (present) tlb.fill(pcid, va, cpu.now());
        co_await cpu.stall(platform().spec().tlb.refill_per_entry);
        if (present) co_return;
        co_await handle_mm_fault(cpu, mm, va, write);
    }
}

sim::Task<> Mm::handle_mm_fault(hw::Cpu& cpu, MmStruct& mm, uint64_t va, bool write) {
    static const uint32_t label = hw::profile_label("exc_page_fault");
    auto scope = cpu.function(label, hw::Activity::kernel);
    ++stats_.faults;
    co_await cpu.compute_cycles(costs::exc_page_fault);
    // do_user_addr_fault(): the per-VMA lock first, mmap_lock when that fails.
    if (fault_lock_ == MmLock::vma_lock) {
        if (Vma* vma = co_await lock_vma_under_rcu(cpu, mm, va, va + 1); vma != nullptr) {
            co_await do_user_fault(cpu, mm, va, write);
            co_await vma_end_read(cpu, *vma);
            co_return;
        }
    }
    // lock_mm_and_find_vma(): mmap_read_lock, the tree walk.
    co_await mm.mmap_lock->down_read(cpu);
    co_await cpu.compute_cycles(costs::lock_vma_under_rcu);
    if (mm.find_vma(va) == nullptr) {
        throw std::logic_error(fmt::format("cpu{}: fault at unmapped {:#x}", cpu.id(), va));
    }
    co_await do_user_fault(cpu, mm, va, write);
    co_await mm.mmap_lock->up_read(cpu);
}

sim::Task<> Mm::pte_alloc(hw::Cpu& cpu, MmStruct& mm, uint64_t pmd) {
    co_await cpu.compute_cycles(costs::pte_alloc);
    std::unique_ptr<RawSpinLock>& ptl = mm.ptl[pmd];
    if (ptl == nullptr) {
        // The page table page comes from the allocating CPU's node, and so does its struct page.
        ptl = std::make_unique<RawSpinLock>(mem_, fmt::format("mm{}.ptl[{:#x}]", mm.id, pmd), "ptdesc.ptl",
                                            platform().topology().node_of(cpu.id()));
    }
    co_await mem_.store(cpu.id(), ptl->word(), 0);  // ptlock_init(): spin_lock_init(&ptdesc->ptl)
    mm.pte_tables.insert(pmd);
}

RawSpinLock& Mm::pte_lockptr(MmStruct& mm, uint64_t pmd) {
    return *mm.ptl.at(pmd);
}

sim::Task<> Mm::do_user_fault(hw::Cpu& cpu, MmStruct& mm, uint64_t va, bool write) {
    static const uint32_t label_anon = hw::profile_label("do_anonymous_page");
    co_await cpu.compute(platform().spec().cpu.handle_mm_fault);
    const uint64_t pmd = va >> PMD_SHIFT;
    if (mm.pte_tables.count(pmd) == 0) co_await pte_alloc(cpu, mm, pmd);
    const uint64_t vpn = va >> PAGE_SHIFT;
    if (auto it = mm.ptes.find(vpn); it != mm.ptes.end()) {
        if (write && it->second->zero) {
            throw std::logic_error("write to a zero-page mapping (do_wp_page) is not modeled");
        }
        co_return;
    }
    auto anon = cpu.function(label_anon);
    // do_anonymous_page(): a write's folio is allocated, charged and cleared first; the PTE is
    // installed under the PTE page's lock (pte_offset_map_lock), which also covers the rmap, the
    // RSS counter and folio_add_lru_vma(); a read maps the zero page under the same lock.
    Folio* folio = nullptr;
    if (write) {
        co_await cpu.compute_cycles(costs::alloc_page_pcp);
        co_await memcg_->charge(cpu, 1);  // mem_cgroup_charge(): alloc_anon_folio charges the folio
        co_await cpu.compute_cycles(costs::clear_page);
        folio = alloc_folio();
    }
    RawSpinLock& ptl = pte_lockptr(mm, pmd);
    co_await ptl.raw_spin_lock(cpu);
    if (mm.ptes.count(vpn) != 0) {
        // vmf_pte_changed(): a concurrent fault installed the PTE first. A write's folio goes
        // back (folio_put(): the last reference, so it is uncharged and freed).
        co_await ptl.raw_spin_unlock(cpu);
        if (folio != nullptr) {
            co_await cpu.compute_cycles(costs::folio_put + costs::free_unref_folio);
            co_await memcg_->uncharge_batch(cpu, 1);
            free_folio(folio);
        }
        co_return;
    }
    if (write) {
        co_await cpu.compute_cycles(costs::do_anonymous_page_map);
        mm.ptes[vpn] = folio;
        co_await lru_->folio_add_lru(cpu, folio);
    } else {
        co_await cpu.compute_cycles(costs::do_anonymous_page_zero);
        mm.ptes[vpn] = &zero_folio_;
    }
    co_await ptl.raw_spin_unlock(cpu);
}

}  // namespace ipisim::kernel::mm
