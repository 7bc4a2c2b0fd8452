// The mm data structures of arch/x86/mm/tlb.c and mm/ (docs/mechanisms.md §2.1), with every field
// that other CPUs read or write on a simulated cache line:
//   mm_struct: context.tlb_gen (atomic64, own line, next to next_trim_cpumask), global_asid and
//     asid_transition (a read-mostly line, with INVLPGB only), mm_cpumask
//     (its own line(s), 64 CPUs per word), mmap_lock (rwsem, own line), mm_lock_seq,
//     tlb_flush_pending (own line).
//   cpu_tlbstate (per CPU, two lines, written only by its owner, read remotely by flushers):
//     line 0 = loaded_mm, loaded_mm_asid, ctxs[0..2]; line 1 = ctxs[3..5].
//   cpu_tlbstate_shared.is_lazy (per CPU, own line, read by every flusher).
//   flush_tlb_info (per CPU, own line, written by the flusher, read by its receivers).
// Values kept only in C++ (ctx_id, page tables, VMA tree) are read-mostly or private to the
// thread that changes them under mmap_lock; their access costs are in mm_costs.h.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "hw/coherence/sim_var.h"
#include "hw/topology.h"
#include "kernel/locking/raw_spinlock.h"
#include "kernel/mm/locks.h"
#include "sim/time.h"

namespace ipisim::hw {
class Cpu;
}

namespace ipisim::kernel::mm {

inline constexpr unsigned PAGE_SHIFT = 12;
inline constexpr uint64_t PAGE_SIZE = 1ULL << PAGE_SHIFT;
inline constexpr unsigned PMD_SHIFT = 21;
inline constexpr uint64_t TLB_FLUSH_ALL = ~0ULL;
inline constexpr uint64_t TLB_GENERATION_INVALID = 0;
// Values of cpu_tlbstate.loaded_mm: mm ids. 0 = none yet, 1 = LOADED_MM_SWITCHING.
inline constexpr uint64_t LOADED_MM_SWITCHING = 1;
inline constexpr uint64_t INIT_MM_ID = 2;
// include/linux/pagevec.h: PAGEVEC_SIZE, the folio_batch capacity: 15 before 6.9, 31 from 6.9
// (Matthew Wilcox's "mm: increase folio batch size", 9cecde80aae0; later FOLIO_BATCH_SIZE in
// include/linux/folio_batch.h). The kernel's value is [kernel] folio_batch_size; this is the
// unit tests' kernels' default.
inline constexpr uint32_t PAGEVEC_SIZE = 15;

// A page frame (struct folio of order 0).
struct Folio {
    uint64_t pfn = 0;
    uint32_t refcount = 0;
    bool lru = false;   // PG_lru: on the node's LRU list
    bool zero = false;  // the shared zero page (never freed)
};

// A vm_area_struct of an anonymous private mapping. Its objects are recycled (vm_area_cachep
// is SLAB_TYPESAFE_BY_RCU from 6.15, and a freed object is reused at once): a fault that found
// a VMA under RCU re-checks, once it holds the VMA's lock, that it is still attached and still
// covers the address (lock_vma_under_rcu, kernel/mm/vma.cpp).
struct Vma {
    static constexpr uint64_t NO_LOCK_SEQ = ~0ULL;
    uint64_t start = 0;
    uint64_t end = 0;
    std::unique_ptr<RwSem> vm_lock;  // per-VMA lock (CONFIG_PER_VMA_LOCK; vm_refcnt from 6.15), own line
    // vm_lock_seq: the mm_lock_seq of the mmap_lock writer that write-locked it
    // (vma_start_write); the VMA is write-locked while this equals the mm's mm_lock_seq.
    uint64_t vm_lock_seq = NO_LOCK_SEQ;
    // The line of vm_start, vm_end and vm_lock_seq (the value here): read by every
    // lock_vma_under_rcu, written by vma_start_write and by a merge or split that moves a bound.
    hw::SimVar* bounds = nullptr;
    bool detached = true;  // not in the mm's VMA tree (freed, or being removed)
};

struct MmStruct {
    uint64_t id = 0;                          // the value cpu_tlbstate.loaded_mm holds while it is loaded
    uint64_t ctx_id = 0;                      // context.ctx_id: unique, never reused
    hw::SimVar* tlb_gen = nullptr;            // context.tlb_gen (atomic64)
    hw::SimVar* next_trim_cpumask = nullptr;  // context.next_trim_cpumask (jiffies), same line
    // CONFIG_BROADCAST_TLB_FLUSH: context.global_asid (0 = none) and context.asid_transition,
    // on their own read-mostly line; allocated only when the flush protocol has global ASIDs
    // (Mm::broadcast_tlb_flush), written only by it (kernel/tlbflush/global_asid*.cpp).
    hw::SimVar* global_asid = nullptr;
    hw::SimVar* asid_transition = nullptr;
    std::vector<hw::SimVar*> cpumask;  // mm_cpumask(mm), 64 CPUs per word
    std::unique_ptr<RwSem> mmap_lock;
    hw::SimVar* mm_lock_seq = nullptr;  // read by lock_vma_under_rcu, bumped by writers
    // tlb_flush_pending (atomic_t): how many mmu_gathers of this mm are open (between
    // tlb_gather_mmu and the end of tlb_finish_mmu); on its own line, among read-mostly fields.
    hw::SimVar* tlb_flush_pending = nullptr;
    uint32_t home_node = 0;

    // Address space (changed under mmap_lock / the PTE lock by the thread that owns it).
    std::map<uint64_t, Vma*> vmas;  // the VMA tree, by start (adjacent anonymous VMAs merge)
    // Unmapped ranges whose release a lazy flush protocol still defers (start -> end): not
    // reusable by get_unmapped_area() until every CPU applied the flush.
    std::map<uint64_t, uint64_t> lazy_unmapped;
    std::map<uint64_t, Folio*> ptes;  // present PTEs by virtual page number
    std::set<uint64_t> pte_tables;    // PMD indexes (va >> 21) with a PTE page
    // Each PTE page's split lock (ptdesc->ptl, CONFIG_SPLIT_PTE_PTLOCKS), by PMD index: a
    // spinlock_t taken with IRQs on, on the page table page's struct page line. A PTE page freed
    // by munmap leaves its lock object here, and the next PTE page at that index initializes it
    // again (ptlock_init) [A: the page allocator hands the freed page back].
    std::map<uint64_t, std::unique_ptr<RawSpinLock>> ptl;
    uint64_t mmap_base = 0x7f0000000000ULL;
    std::vector<std::unique_ptr<Vma>> vma_slab;  // vm_area_cachep: every Vma object, stable addresses
    std::vector<Vma*> free_vmas;                 // its free objects, reused LIFO

    // The VMA that contains `va` (nullptr: none), as the maple tree walk finds it.
    [[nodiscard]] Vma* find_vma(uint64_t va) const;
};

struct TlbContext {
    hw::SimVar* ctx_id = nullptr;
    hw::SimVar* tlb_gen = nullptr;
};

struct CpuTlbState {
    hw::SimVar* loaded_mm = nullptr;
    hw::SimVar* loaded_mm_asid = nullptr;
    std::vector<TlbContext> ctxs;   // TLB_NR_DYN_ASIDS
    uint16_t next_asid = 1;         // owner-only allocator cursor
    hw::SimVar* is_lazy = nullptr;  // cpu_tlbstate_shared.is_lazy, own line
};

// Why a range is flushed. Linux's flush_tlb_info does not carry it; a lazy protocol (LATR) needs
// it: only unmaps (the memory is freed after the flush) may complete lazily, a permission
// downgrade (mprotect) must be visible on every CPU when the call returns.
enum class TlbFlushReason : uint8_t { unmap, protection };

struct FlushTlbInfo {
    MmStruct* mm = nullptr;  // nullptr: kernel flush
    uint64_t start = 0;
    uint64_t end = 0;
    uint64_t new_tlb_gen = TLB_GENERATION_INVALID;
    hw::CpuId initiating_cpu = 0;
    unsigned stride_shift = PAGE_SHIFT;
    bool freed_tables = false;
    bool trim_cpumask = false;
    TlbFlushReason reason = TlbFlushReason::unmap;
    hw::SimVar* line = nullptr;  // the per-CPU structure's cache line (one word stands for it)
};

// What tlb_finish_mmu() releases once the flush of [start, end) is complete: the gathered
// folios (tlb_batch_pages_flush), the page tables of the range when `freed_tables`, and, for
// munmap (`unmapped_va`), the virtual range, which a lazy protocol keeps out of
// get_unmapped_area() until then. `zapper` is the CPU whose zap cleared the PTEs; a release
// of a zap that cleared none and freed no tables releases no frame (the checker is told
// nothing: a frame that CPU's earlier zap unmapped may still wait for a lazy flush).
struct TlbRelease {
    MmStruct* mm = nullptr;
    uint64_t start = 0;
    uint64_t end = 0;
    bool freed_tables = false;
    bool unmapped_va = false;
    hw::CpuId zapper = 0;
    uint64_t cleared = 0;  // PTEs the zap cleared (0: it unmapped no frame of the range)
    sim::Picos zapped;     // when the zap cleared them
    std::vector<Folio*> folios;
    std::function<void(hw::Cpu&)> released;  // optional: called on the releasing CPU (tests)
};

}  // namespace ipisim::kernel::mm
