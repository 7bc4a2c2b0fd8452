// The memory-management layer of the simulated kernel on one machine: every CPU's TLB and
// cpu_tlbstate, the mm_structs, the x86 TLB code of arch/x86/mm/tlb.c (switch_mm_irqs_off,
// flush_tlb_mm_range, should_flush_tlb, flush_tlb_func), the remote-flush protocol it uses,
// and the mm/ paths tlb_flush2 exercises (page faults, LRU batches, madvise, mmap, munmap).
// Every function is awaited by the process running on `cpu`, under its kernel name.
//
//   kernel::mm::Mm mm(kernel, "ipi");
//   MmStruct& m = mm.mm_alloc(node);
//   co_await mm.switch_mm_irqs_off(cpu, m);
//   const uint64_t addr = co_await mm.vm_mmap(cpu, m, 1 << 20);
//   co_await mm.user_access(cpu, m, addr, /*write=*/true);   // faults as needed
//   co_await mm.do_madvise_dontneed(cpu, m, addr, PAGE_SIZE);  // zap + 1-page flush
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hw/cpumask.h"
#include "hw/tlb/tlb.h"
#include "kernel/kernel.h"
#include "kernel/mm/lru.h"
#include "kernel/mm/memcg.h"
#include "kernel/mm/mm_lock.h"
#include "kernel/mm/mm_types.h"
#include "kernel/tlbflush/tlb_flush_protocol.h"

namespace ipisim::kernel::mm {

class SchedLink;  // kernel/mm/sched_link.h

struct TlbFlushStats {
    uint64_t flush_tlb_mm_range = 0;
    uint64_t remote_flushes = 0;       // path (b): flush_tlb_multi calls
    uint64_t local_flushes = 0;        // path (c)
    uint64_t full_range = 0;           // requests turned into TLB_FLUSH_ALL
    uint64_t trims = 0;                // should_trim_cpumask() returned true
    uint64_t flush_tlb_func = 0;       // handler runs (local and remote)
    uint64_t coalesced = 0;            // returned at the generation checks
    uint64_t partial = 0;              // INVLPG-per-page flushes
    uint64_t full = 0;                 // flush_tlb_local
    uint64_t stale_cpumask = 0;        // receivers that cleared themselves from mm_cpumask
    uint64_t lazy_switches = 0;        // lazy receivers switched to init_mm
    uint64_t asid_reloads = 0;         // receivers that moved to the mm's global ASID (step 3)
    uint64_t global_asid_returns = 0;  // receivers on a global ASID: nothing to do (step 4)
    // Global ASIDs current only on mm_cpumask (GlobalAsidFlavour::mm_cpumask, RAR):
    uint64_t global_asid_switch_flushes = 0;  // newly set in mm_cpumask at switch-in: flushed
    uint64_t global_asid_flushes = 0;         // flush_tlb_func applied to a global ASID
};

// The pid of the task a workload runs on CPU c, unless set_task_pid() says otherwise: tasks
// are numbered in CPU order from here ([A] will-it-scale's threads get consecutive TIDs).
// [A] 1024 = 0 mod 32 puts CPU 0's task in phase with jiffy 0 for consider_global_asid()'s
// (pid & 0x1f) == (jiffies & 0x1f) check. The real phase is arbitrary, but a real run lasts
// seconds and some task passes the check within 32 jiffies (128 ms); starting in phase lets a
// few-ms simulated window stand for that steady state instead of the first 128 ms.
inline constexpr uint32_t FIRST_TASK_PID = 1024;

struct MmStats {
    uint64_t faults = 0;
    uint64_t pages_allocated = 0;
    uint64_t pages_freed = 0;
    uint64_t madvise = 0;
    uint64_t mmap = 0;
    uint64_t munmap = 0;
    uint64_t stale_tlb_hits = 0;  // user accesses that hit a TLB entry with no PTE behind it
    // lock_vma_under_rcu outcomes (the kernel's VMA_LOCK_* vm events): the VMA read-locked,
    // fallen back to mmap_lock (write-locked VMA, writer on its lock, range outside it), and
    // looked up again (the VMA was freed under the walk).
    uint64_t vma_lock_success = 0;
    uint64_t vma_lock_abort = 0;
    uint64_t vma_lock_miss = 0;
    uint64_t vma_merges = 0;      // mmaps that extended a neighbouring VMA
    uint64_t vma_splits = 0;      // __split_vma calls of munmap
    uint64_t nested_flushes = 0;  // tlb_finish_mmu flushes of the whole mm (mm_tlb_flush_nested)
};

class Mm {
public:
    // With the registered tlb_flush protocol `flush_protocol`: std::invalid_argument when it is
    // unknown or its machine_support() refuses the machine.
    Mm(Kernel& kernel, const std::string& flush_protocol);
    ~Mm();
    Mm(const Mm&) = delete;
    Mm& operator=(const Mm&) = delete;

    [[nodiscard]] Kernel& kernel() const { return k_; }
    [[nodiscard]] hw::Platform& platform() const { return k_.platform(); }
    [[nodiscard]] hw::Memory& mem() const { return mem_; }
    [[nodiscard]] Smp& smp() const { return k_.smp(); }
    // Checker mutant (check/mutants.cpp): switch_mm_irqs_off() to another mm without the
    // smp_mb() between its LOADED_MM_SWITCHING store and its tlb_gen read when its bit is
    // already in mm_cpumask (6.14 to 6.17 before 83b0177a6c48).
    void set_switch_mm_skips_smp_mb(bool on) { switch_mm_skips_smp_mb_ = on; }
    [[nodiscard]] uint32_t nr_cpus() const { return nr_cpus_; }
    // The CPU's TLB (the Platform's).
    [[nodiscard]] hw::Tlb& tlb(hw::CpuId c) { return *tlbs_.at(c); }
    [[nodiscard]] CpuTlbState& tlbstate(hw::CpuId c) { return tlbstate_.at(c); }
    [[nodiscard]] FlushTlbInfo& flush_tlb_info(hw::CpuId c) { return flush_info_.at(c); }
    [[nodiscard]] TlbFlushProtocol& protocol() { return *protocol_; }
    [[nodiscard]] Lru& lru() { return *lru_; }
    // The scheduler side of the mm layer (context switches, sleeping rwsem waiters).
    [[nodiscard]] SchedLink& sched_link() { return *sched_link_; }
    // The tasks' memory cgroup ([kernel] memcg_depth).
    [[nodiscard]] MemCgroup& memcg() { return *memcg_; }
    [[nodiscard]] MmStruct& init_mm() { return *mms_.front(); }
    [[nodiscard]] MmStruct* mm_by_id(uint64_t id);
    [[nodiscard]] const TlbFlushStats& flush_stats() const { return flush_stats_; }
    [[nodiscard]] const MmStats& stats() const { return stats_; }

    // jiffies = simulated time / TICK_NSEC, 0 at time 0, at the kernel's HZ ([kernel] hz,
    // default 250: a jiffy is 4 ms; the do_timer CPU's tick, CPU 0's, is never skewed). should_trim_cpumask runs at
    // most once per HZ jiffies (1 s); consider_global_asid checks when (pid & 0x1f) == (jiffies & 0x1f).
    [[nodiscard]] uint64_t jiffies() const;
    [[nodiscard]] uint64_t hz() const { return k_.hz(); }
    [[nodiscard]] const TickSched& tick() const { return k_.tick(); }
    // current->pid of the task running on CPU c (FIRST_TASK_PID + c unless set).
    [[nodiscard]] uint32_t task_pid(hw::CpuId c) const { return task_pid_.at(c); }
    void set_task_pid(hw::CpuId c, uint32_t pid) { task_pid_.at(c) = pid; }

    // The protocol's global ASIDs (its global_asid_flavour()). broadcast_tlb_flush():
    // cpu_feature_enabled(X86_FEATURE_INVLPGB) (or RAR): global ASIDs exist, and every mm has its
    // context.global_asid line. Off, none of the global-ASID checks of switch_mm_irqs_off and
    // flush_tlb_func run (static branches in the kernel: no memory access).
    [[nodiscard]] bool broadcast_tlb_flush() const { return global_asid_flavour_ != GlobalAsidFlavour::none; }
    [[nodiscard]] GlobalAsidFlavour global_asid_flavour() const { return global_asid_flavour_; }
    // is_global_asid(): ASIDs [TLB_NR_DYN_ASIDS, MAX_ASID_AVAILABLE) are global.
    [[nodiscard]] bool is_global_asid(uint64_t asid) const { return asid >= nr_dyn_asids_; }
    [[nodiscard]] uint32_t nr_dyn_asids() const { return nr_dyn_asids_; }

    // A machine that has been up for a while: every CPU ran other processes before the
    // workload, so its ASID allocator (cpu_tlbstate.next_asid, docs/mechanisms.md §2.2) is
    // wherever that history left it, not at 1 as after boot. Each CPU's cursor is drawn
    // uniformly from 1..TLB_NR_DYN_ASIDS (stream "mm.asid_history" of `seed`), so the first new
    // mm gets any of the dynamic ASIDs 0..5 (a cursor at 6 wraps to ASID 0). [A] Uniform: the
    // history itself is unknown. Call before the workload's first switch_mm_irqs_off().
    void set_asid_history(uint64_t seed);

    // mm_alloc(): a new user mm with its lines homed on `home_node`.
    MmStruct& mm_alloc(uint32_t home_node);

    // --- arch/x86/mm/tlb.c: context switch and lazy TLB (mm.cpp) ---
    // Switches this CPU's CR3 to `next` (IRQs must be off or are disabled here).
    sim::Task<> switch_mm_irqs_off(hw::Cpu& cpu, MmStruct& next);
    // enter_lazy_tlb(): switching to a kernel thread (idle) keeps the user mm loaded, lazily.
    sim::Task<> enter_lazy_tlb(hw::Cpu& cpu);
    // The PCID the CPU's user accesses use now (kern_pcid(loaded_mm_asid)).
    [[nodiscard]] hw::Pcid loaded_pcid(hw::CpuId c) const;
    [[nodiscard]] uint64_t loaded_mm(hw::CpuId c) const;

    // --- arch/x86/mm/tlb.c: flushing (tlb.cpp) ---
    sim::Task<> flush_tlb_mm_range(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end, unsigned stride_shift,
                                   bool freed_tables, TlbFlushReason reason = TlbFlushReason::unmap);
    // tlb_gather_mmu(): opens a gather on `mm` (counted in mm->tlb_flush_pending; mmu_gather.cpp).
    sim::Task<> tlb_gather_mmu(hw::Cpu& cpu, MmStruct& mm);
    // tlb_finish_mmu(): the flush of what the zap `r` describes (of the whole mm when another
    // gather is open: mm_tlb_flush_nested), its release, and the gather's close.
    sim::Task<> tlb_finish_mmu(hw::Cpu& cpu, TlbRelease r);
    // tlb_finish_mmu()'s release after the flush (tlb_batch_pages_flush, free_pgtables' frees):
    // now, or, when the protocol completes the flush lazily (its defer_release()), once every
    // CPU it reached has applied it.
    sim::Task<> tlb_release(hw::Cpu& cpu, TlbRelease r);
    // The release itself, on `cpu` (the checker's pages_released hook names r.zapper).
    sim::Task<> release_now(hw::Cpu& cpu, TlbRelease& r);
    sim::Task<> flush_tlb_func(hw::Cpu& cpu, const FlushTlbInfo& info);
    // The IPI flush of path (b), the protocols' default flush_tlb_multi: flush_tlb_func on
    // every CPU of `cpumask` should_flush_tlb() selects, or on all of them when the protocol's
    // ipi_flush_must_reach_all(info) says so, through the cross-call layer; waits for them.
    sim::Task<> native_flush_tlb_multi(hw::Cpu& cpu, const hw::CpuMask& cpumask, const FlushTlbInfo& info);
    sim::Task<bool> should_flush_tlb(hw::Cpu& self, hw::CpuId cpu, const FlushTlbInfo& info);
    sim::Task<bool> should_trim_cpumask(hw::Cpu& cpu, MmStruct& mm);
    // Reads mm_cpumask(mm) as CPU `cpu` (coherence loads of its words).
    sim::Task<hw::CpuMask> read_mm_cpumask(hw::Cpu& cpu, MmStruct& mm);

    // --- mm/: the paths tlb_flush2 runs (fault.cpp, madvise.cpp, mmap.cpp) ---
    // A user load/store of one byte at va: TLB lookup, page walk, page fault until it works.
    sim::Task<> user_access(hw::Cpu& cpu, MmStruct& mm, uint64_t va, bool write);
    sim::Task<> handle_mm_fault(hw::Cpu& cpu, MmStruct& mm, uint64_t va, bool write);
    sim::Task<> do_madvise_dontneed(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t len);
    sim::Task<uint64_t> vm_mmap(hw::Cpu& cpu, MmStruct& mm, uint64_t len);
    sim::Task<> vm_munmap(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t len);
    // A mapping made before simulated time starts (a workload that begins in its steady state):
    // the address and VMA merges vm_mmap would give, taking no time, no lock and no line.
    uint64_t mmap_before_start(MmStruct& mm, uint64_t len);
    // A page of the program itself (its text, a library's, its stack, its data) present at `va`
    // before simulated time starts: its PTE, so that user_access() translates it (a TLB miss
    // after a flush of the mm's PCID costs tlb.refill_per_entry), never zapped.
    void populate_before_start(MmStruct& mm, uint64_t va);

    // --- VMAs and the per-VMA lock (vma.cpp) ---
    // The VMA covering [start, end), read-locked; nullptr when there is none, it is
    // write-locked, or a writer holds its lock (the caller falls back to mmap_read_lock).
    sim::Task<Vma*> lock_vma_under_rcu(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end);
    sim::Task<> vma_end_read(hw::Cpu& cpu, Vma& v) { co_await v.vm_lock->up_read(cpu); }
    // Under mmap_lock for write: v is write-locked until the writer's unlock or downgrade.
    sim::Task<> vma_start_write(hw::Cpu& cpu, MmStruct& mm, Vma& v);
    // mmap_write_unlock() / mmap_write_downgrade(): mm_lock_seq + 1 ends every write lock.
    sim::Task<> vma_end_write_all(hw::Cpu& cpu, MmStruct& mm);
    // mmap_write_lock() after down_write(): from 6.14 mm_lock_seq is a seqcount, odd while an
    // mmap_lock writer holds it (mm_lock_seqcount_begin); before, nothing.
    sim::Task<> mmap_write_lock_seqcount(hw::Cpu& cpu, MmStruct& mm);
    [[nodiscard]] static bool vma_write_locked(const MmStruct& mm, const Vma& v);
    // Variant: madvise(MADV_DONTNEED) calls lru_add_drain() first (kernels before Rik van
    // Riel's "mm: remove unnecessary calls to lru_add_drain", 2024-12).
    void set_madvise_lru_add_drain(bool on) { madvise_lru_add_drain_ = on; }

    // Folios (page allocator): order-0 pages, recycled LIFO.
    Folio* alloc_folio();
    void free_folio(Folio* f);
    [[nodiscard]] Folio& zero_folio() { return zero_folio_; }

private:
    // A Vma object from vm_area_cachep covering [start, end), detached.
    Vma* vm_area_alloc(MmStruct& mm, uint64_t start, uint64_t end);
    static void vma_insert(MmStruct& mm, Vma& v);
    static void vma_remove(MmStruct& mm, Vma& v);  // detaches and frees it
    // Moves v's start (a merge extending it down, a split cutting off its lower part): re-keys the tree.
    static void vma_set_start(MmStruct& mm, Vma& v, uint64_t start);
    // CONFIG_PER_VMA_LOCK: faults or madvise use the per-VMA lock (else vma_start_write is a no-op).
    [[nodiscard]] bool per_vma_lock() const {
        return fault_lock_ == MmLock::vma_lock || madvise_lock_ == MmLock::vma_lock;
    }
    // The neighbours vma_merge_new_range() merges [start, end) with: the VMA ending at start
    // and the one beginning at end (either may be nullptr).
    [[nodiscard]] static std::pair<Vma*, Vma*> merge_neighbours(const MmStruct& mm, uint64_t start, uint64_t end);
    // The tree change of a merge over [start, end) with those neighbours: prev extended (over
    // next too, which is removed), else next moved down to start, else a new VMA. Returns the
    // VMA that covers the range.
    Vma* vma_merge_apply(MmStruct& mm, Vma* prev, Vma* next, uint64_t start, uint64_t end);
    // mmap's VMA for [start, end): a neighbour extended over it, or a new one.
    sim::Task<> vma_merge_new_range(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end);
    // munmap's detach of [start, end) (inside one VMA): the splits, then the removal.
    sim::Task<> vms_gather_munmap_vmas(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end);
    // __pte_alloc(): a new PTE page at PMD index `pmd`, its split lock initialized
    // (pagetable_pte_ctor() -> ptlock_init(): the lock word written by the allocating CPU).
    sim::Task<> pte_alloc(hw::Cpu& cpu, MmStruct& mm, uint64_t pmd);
    // pte_lockptr(): the split lock of the PTE page at `pmd`, which must exist.
    [[nodiscard]] static RawSpinLock& pte_lockptr(MmStruct& mm, uint64_t pmd);
    // The fault's work once the VMA is found and locked (either lock).
    sim::Task<> do_user_fault(hw::Cpu& cpu, MmStruct& mm, uint64_t va, bool write);
    // madvise(MADV_DONTNEED)'s zap and flush of [start, start + len) under whichever lock.
    sim::Task<> madvise_dontneed_single_vma(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t len);
    // Clears the PTEs of [start, end) one PTE page at a time, each under its split lock, and
    // gathers their folios; returns how many it cleared. `zapped`: when the first were cleared.
    sim::Task<uint64_t> zap_pte_range(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end,
                                      std::vector<Folio*>& gathered, sim::Picos& zapped);
    // mm_needs_global_asid(): the mm has a global ASID and `asid` is not it (IRQs off).
    sim::Task<bool> mm_needs_global_asid(hw::Cpu& cpu, MmStruct& mm, uint64_t asid);
    void alloc_global_asid_line(MmStruct& m);
    // mm_lock_seq + 1 by the mmap_lock writer: a plain load and store (vma_end_write_all and
    // 6.14's mmap_write_lock_seqcount).
    sim::Task<> bump_mm_lock_seq(hw::Cpu& cpu, MmStruct& mm);
    // flush_tlb_func's "reload the ASID if transitioning into or out of a global ASID": the
    // ASID the CPU runs `loaded` with afterwards.
    sim::Task<uint64_t> reload_global_asid(hw::Cpu& cpu, uint64_t loaded, uint64_t asid);

    Kernel& k_;
    hw::Memory& mem_;
    uint32_t nr_cpus_;
    uint32_t nr_dyn_asids_ = 1;
    GlobalAsidFlavour global_asid_flavour_ = GlobalAsidFlavour::none;
    std::vector<uint32_t> task_pid_;
    std::vector<hw::Tlb*> tlbs_;
    std::vector<CpuTlbState> tlbstate_;
    std::vector<FlushTlbInfo> flush_info_;
    std::vector<std::unique_ptr<MmStruct>> mms_;  // [0] = init_mm; id = index + INIT_MM_ID
    uint64_t next_ctx_id_ = 1;
    std::unique_ptr<TlbFlushProtocol> protocol_;
    std::unique_ptr<SchedLink> sched_link_;
    std::unique_ptr<Lru> lru_;
    std::unique_ptr<MemCgroup> memcg_;
    std::vector<std::unique_ptr<Folio>> folios_;
    std::vector<Folio*> free_folios_;
    Folio zero_folio_;
    bool madvise_lru_add_drain_ = true;
    MmLock fault_lock_ = MmLock::vma_lock;     // [kernel] fault_lock
    MmLock madvise_lock_ = MmLock::mmap_lock;  // [kernel] madvise_lock
    bool lazy_mm_cpumask_ = true;              // [kernel] lazy_mm_cpumask
    bool switch_mm_skips_smp_mb_ = false;      // a checker mutant
    TlbFlushStats flush_stats_;
    MmStats stats_;
};

}  // namespace ipisim::kernel::mm
