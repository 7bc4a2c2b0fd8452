// The part of arch/x86/mm/tlb.c that INVLPGB and RAR share: flush protocols that give busy
// multi-threaded mms a global ASID and then flush them by broadcast. Until an mm has one, the
// IPI path runs and consider_global_asid() may assign one (1 jiffy in 32 per task, when
// mm_active_cpus_exceeds(mm, 3)); while an mm moves onto it, finish_asid_transition() makes
// the stragglers reload through an IPI flush.
#pragma once

#include <cstdint>
#include <memory>

#include "kernel/tlbflush/global_asid.h"
#include "kernel/tlbflush/tlb_flush_protocol.h"

namespace ipisim::kernel {

struct GlobalAsidFlushStats {
    uint64_t broadcasts = 0;            // broadcast_tlb_flush() calls (path (a))
    uint64_t invlpgb = 0;               // INVLPGB: instructions issued by them
    uint64_t flush_tlb_all = 0;         // RAR: wrap-around resets, a RAR to every online CPU
    uint64_t considered = 0;            // consider_global_asid() past the jiffies rate limit
    uint64_t active_exceeded = 0;       // ... and mm_active_cpus_exceeds(mm, 3) held
    uint64_t transition_ipis = 0;       // finish_asid_transition() fell back to flush_tlb_multi
    uint64_t transitions_finished = 0;  // asid_transition cleared
};

class GlobalAsidProtocol : public TlbFlushProtocol {
public:
    // Threshold of consider_global_asid(): more than this many CPUs actively run the mm.
    static constexpr unsigned kActiveCpusThreshold = 3;

    // native_flush_tlb_multi() reaches every CPU of the mask while the mm is in transition to
    // its global ASID (mm_in_asid_transition(info->mm)), and for freed page tables.
    sim::Task<bool> ipi_flush_must_reach_all(hw::Cpu& self, const mm::FlushTlbInfo& info) override;
    [[nodiscard]] bool uses_broadcast(const mm::MmStruct& mm) const override;
    sim::Task<> consider_global_asid(hw::Cpu& self, mm::MmStruct& mm) override;
    // mm_active_cpus_exceeds(mm, threshold): remote loaded_mm / is_lazy reads.
    sim::Task<bool> mm_active_cpus_exceeds(hw::Cpu& self, mm::MmStruct& mm, unsigned threshold);

    [[nodiscard]] GlobalAsids& global_asids() { return *asids_; }
    [[nodiscard]] const GlobalAsidFlushStats& stats() const { return stats_; }

protected:
    sim::Task<bool> mm_in_asid_transition(hw::Cpu& self, mm::MmStruct* mm);
    sim::Task<> finish_asid_transition(hw::Cpu& self, const mm::FlushTlbInfo& info);

    std::unique_ptr<GlobalAsids> asids_;
    GlobalAsidFlushStats stats_;
};

}  // namespace ipisim::kernel
