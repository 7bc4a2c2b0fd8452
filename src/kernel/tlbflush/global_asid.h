// The global ASID space of arch/x86/mm/tlb.c (CONFIG_BROADCAST_TLB_FLUSH; docs/mechanisms.md §2.2,
// §2.8): ASIDs [TLB_NR_DYN_ASIDS, MAX_ASID_AVAILABLE) are handed to whole processes, which then
// use the same PCID on every CPU and are flushed by INVLPGB broadcasts instead of IPIs.
//
//   GlobalAsids asids(mem, *platform.invlpgb(), /*nr_dyn_asids=*/6);
//   co_await asids.use_global_asid(cpu, mm);      // consider_global_asid() decided to
//   co_await asids.mm_free_global_asid(cpu, mm);  // destroy_context()
//
// Shared state, all on simulated lines homed on node 0:
//   global_asid_lock (raw spinlock, taken with IRQs saved/disabled), with last_global_asid and
//   global_asid_available beside it on the same line (file-static u16s of tlb.c);
//   global_asid_used / global_asid_freed bitmaps, 64 ASIDs per word, 8 words per line.
// The cursor starts at MAX_ASID_AVAILABLE, so the first allocation resets the space:
// invlpgb_flush_all_nonglobals() (INVLPGB + TLBSYNC) under the lock, used &= ~freed, freed = 0,
// cursor = TLB_NR_DYN_ASIDS. A freed ASID is reused only after such a reset.
// One divergence, documented in docs/mechanisms.md §2.8 item 3: when no zero bit is left above the
// cursor while freed-but-unreset ASIDs exist, the kernel's search result is out of range; we
// reset and search again.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"
#include "hw/tlb/invlpgb.h"
#include "kernel/mm/mm_types.h"
#include "sim/task.h"

namespace ipisim::kernel {

// MAX_ASID_AVAILABLE = 2^(12 - PTI_BITS) - 2 with CONFIG_MITIGATION_PAGE_TABLE_ISOLATION built
// in (PTI_BITS = 1, even when PTI is off at run time, as on distribution kernels): 2046.
// Without the option it is 4094; pass that to the constructor to model such a kernel.
inline constexpr uint32_t MAX_ASID_AVAILABLE = 2046;

struct GlobalAsidStats {
    uint64_t allocations = 0;
    uint64_t frees = 0;
    uint64_t resets = 0;     // reset_global_asid_space(): flush-all-nonglobals under the lock
    uint64_t exhausted = 0;  // use_global_asid() found none available ("Ran out of global ASIDs")
};

class GlobalAsids {
public:
    GlobalAsids(hw::Memory& mem, hw::Invlpgb& invlpgb, uint32_t nr_dyn_asids,
                uint32_t max_asid_available = MAX_ASID_AVAILABLE);
    // The flush of reset_global_asid_space(), run under the lock with IRQs off: with INVLPGB
    // invlpgb_flush_all_nonglobals() (the constructor above); with RAR, whose global ASIDs are
    // current only on mm_cpumask CPUs, flush_tlb_all() (docs/mechanisms.md §3.3).
    using ResetFlush = std::function<sim::Task<>(hw::Cpu& cpu)>;
    GlobalAsids(hw::Memory& mem, ResetFlush reset_flush, uint32_t nr_dyn_asids,
                uint32_t max_asid_available = MAX_ASID_AVAILABLE);
    GlobalAsids(const GlobalAsids&) = delete;
    GlobalAsids& operator=(const GlobalAsids&) = delete;

    // use_global_asid(mm): under the lock, unless the mm has one or none is left, allocate one
    // and publish it: asid_transition = true, then store-release global_asid.
    sim::Task<> use_global_asid(hw::Cpu& cpu, mm::MmStruct& mm);
    // mm_free_global_asid(mm) at mm teardown: mark the ASID freed, clear mm's global_asid.
    sim::Task<> mm_free_global_asid(hw::Cpu& cpu, mm::MmStruct& mm);

    [[nodiscard]] uint32_t max_asid_available() const { return max_; }
    // Before the first allocation: a smaller MAX_ASID_AVAILABLE (above nr_dyn_asids + 1, at most
    // the constructor's), so that the space wraps within a short run (the checker's small
    // scope, docs/checker.md). std::logic_error after an allocation or out of range.
    void set_max_asid_available(uint32_t max);
    [[nodiscard]] uint64_t last_global_asid() const { return last_->peek(); }
    [[nodiscard]] uint64_t global_asid_available() const { return available_->peek(); }
    [[nodiscard]] bool used(uint32_t asid) const { return (used_[asid / 64]->peek() >> (asid % 64) & 1) != 0; }
    [[nodiscard]] hw::SimVar& lock_word() const { return *lock_; }
    [[nodiscard]] const GlobalAsidStats& stats() const { return stats_; }

private:
    // allocate_global_asid() and reset_global_asid_space(): global_asid_lock held.
    sim::Task<uint64_t> allocate_global_asid(hw::Cpu& cpu);
    sim::Task<> reset_global_asid_space(hw::Cpu& cpu);
    // find_next_zero_bit(global_asid_used, max, from): max when there is none.
    sim::Task<uint64_t> find_next_zero_bit(hw::Cpu& cpu, uint64_t from);
    sim::Task<> lock_irqsave(hw::Cpu& cpu, bool& irqs_were_on);
    sim::Task<> unlock_irqrestore(hw::Cpu& cpu, bool irqs_were_on);

    hw::Memory& mem_;
    ResetFlush reset_flush_;
    uint32_t nr_dyn_;
    uint32_t max_;
    hw::SimVar* lock_;
    hw::SimVar* last_;       // last_global_asid
    hw::SimVar* available_;  // global_asid_available
    std::vector<hw::SimVar*> used_;
    std::vector<hw::SimVar*> freed_;
    GlobalAsidStats stats_;
};

}  // namespace ipisim::kernel
