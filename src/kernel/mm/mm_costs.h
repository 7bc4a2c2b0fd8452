// Instruction costs of the mm code paths tlb_flush2 exercises, in core cycles (the machine's
// clock converts them), for the software between modeled hardware operations: cache-line
// accesses (locks, tlb_gen, mm_cpumask, cpu_tlbstate), TLB instructions and page walks
// (machine [tlb]), IPIs and IRQ entry/exit (machine [cpu], [intc]) are costed by hw/.
//
// Every value is [A] (a path-length estimate at IPC ~1-2 with a one-line rationale). The rest
// of handle_mm_fault() is a machine cost, [cpu] handle_mm_fault: fitted per machine (on
// sapphire_rapids_30c to the seed 000 1-thread row, on a probed host to its own refault time).
#pragma once

#include "sim/time.h"

namespace ipisim::kernel::mm::costs {

// --- page fault (arch/x86/mm/fault.c, mm/memory.c) ---
// asm_exc_page_fault: vectoring, error entry, CR2 read, irqentry_exit with mitigations; the
// machine files put IRQ entry+exit at ~1000 cycles including the APIC; an exception has no
// APIC part. [A]
inline constexpr sim::Cycles exc_page_fault{700};
// lock_vma_under_rcu(): maple-tree walk under RCU, vma checks (the lock itself is modeled). [A]
inline constexpr sim::Cycles lock_vma_under_rcu{60};
// do_anonymous_page(), write: alloc_anon_folio from the per-CPU page lists. [A]
inline constexpr sim::Cycles alloc_page_pcp{150};
// mem_cgroup_charge() against the per-CPU charge stock (consume_stock, commit_charge, the
// per-CPU statistics); the page_counter atomics of a stock refill are modeled (memcg.h). [A]
inline constexpr sim::Cycles mem_cgroup_charge{100};
// page_counter_try_charge()/page_counter_cancel() per level besides its atomic: the limit
// check and propagate_protected_usage() with no protection configured. [A]
inline constexpr sim::Cycles page_counter_level{20};
// clear_page_erms(): 4 KiB `rep stosb`, the page hot in this CPU's caches (pcp LIFO). [A]
inline constexpr sim::Cycles clear_page{400};
// folio_add_new_anon_rmap, set_pte_at, mm counters, update_mmu_cache. [A]
inline constexpr sim::Cycles do_anonymous_page_map{120};
// do_anonymous_page(), read: map the shared zero page (pte_mkspecial, set_pte_at). [A]
inline constexpr sim::Cycles do_anonymous_page_zero{80};
// __pte_alloc(): a page-table page allocated, cleared and populated. [A]
inline constexpr sim::Cycles pte_alloc{500};

// --- LRU (mm/swap.c) ---
// folio_add_lru(): folio_get + folio_batch_add under the per-CPU local lock. [A]
inline constexpr sim::Cycles folio_add_lru{40};
// lru_add_drain(): local_lock, checks of the per-CPU batches (when they are empty). [A]
inline constexpr sim::Cycles lru_add_drain{30};
// Per folio under the LRU lock: lruvec_add_folio (list insert, counters). [A]
inline constexpr sim::Cycles lruvec_add_folio{40};
// Per folio under the LRU lock: lruvec_del_folio in __page_cache_release. [A]
inline constexpr sim::Cycles lruvec_del_folio{30};
// folios_put_refs() per folio: refcount drop, memcg uncharge batching. [A]
inline constexpr sim::Cycles folio_put{30};
// free_unref_folios(): per folio onto the per-CPU free lists. [A]
inline constexpr sim::Cycles free_unref_folio{80};

// --- madvise / zap (mm/madvise.c, mm/memory.c, mm/mmu_gather.c) ---
// do_madvise(): argument checks, madvise_walk_vmas, madvise_dontneed_free checks. [A]
inline constexpr sim::Cycles do_madvise{150};
// zap_page_range_single(): tlb_gather_mmu, mmu_notifier range, unmap_page_range walk. [A]
inline constexpr sim::Cycles zap_page_range{250};
// Per present PTE: ptep_get_and_clear_full, rmap removal, __tlb_remove_folio. [A]
inline constexpr sim::Cycles zap_pte{60};
// tlb_finish_mmu() bookkeeping around the flush and the batch free. [A]
inline constexpr sim::Cycles tlb_finish_mmu{50};

// --- mmap / munmap (mm/mmap.c, mm/vma.c) ---
// vm_mmap_pgoff(): get_unmapped_area, vma allocation, maple-tree insert, accounting. [A]
inline constexpr sim::Cycles do_mmap{1500};
// do_vmi_munmap() after vms_gather_munmap_vmas (its splits are split_vma): the maple-tree
// clear of the range, accounting, unmap_region set-up, vma free (zap per PTE extra). [A]
inline constexpr sim::Cycles do_munmap{1500};
// vma_merge_new_range() -> vma_expand(): the neighbours' checks, the maple-tree store, and
// vma_complete (anon_vma and i_mmap bookkeeping) when a new mapping extends its neighbour. [A]
inline constexpr sim::Cycles vma_expand{300};
// __split_vma(): vm_area_dup (copies the ~200-byte vm_area_struct), anon_vma_clone (one
// anon_vma_chain allocated and linked under the anon_vma lock), the maple-tree store. [A]
inline constexpr sim::Cycles split_vma{600};
// free_pgtables(): one PTE page freed (batched in the mmu_gather). [A]
inline constexpr sim::Cycles free_pte_table{200};

// --- arch/x86/mm/tlb.c ---
// flush_tlb_mm_range(): get_cpu, info fill, path choice (the tlb_gen RMW and cpumask reads
// are modeled). [A]
inline constexpr sim::Cycles flush_tlb_mm_range{80};
// flush_tlb_func(): the checks around the generation compare. [A]
inline constexpr sim::Cycles flush_tlb_func{40};
// should_flush_tlb(): the compares (its two remote loads are modeled). [A]
inline constexpr sim::Cycles should_flush_tlb{10};
// switch_mm_irqs_off(): speculation checks, choose_new_asid, LAM/CR4/LDT updates. [A]
inline constexpr sim::Cycles switch_mm_irqs_off{150};

// --- user space ---
// tlb_flush2's loop body besides the faulting accesses: the counter, the assert. [A]
inline constexpr sim::Cycles user_iteration{10};

}  // namespace ipisim::kernel::mm::costs
