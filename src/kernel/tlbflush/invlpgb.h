// AMD INVLPGB broadcast TLB invalidation with global ASIDs (Rik van Riel, merged for 6.15;
// docs/mechanisms.md §2.4 path (a), §2.5, §2.8). Registered as tlb_flush "invlpgb".
//
// Until an mm has a global ASID it is flushed exactly like `ipi` (native_flush_tlb_multi, to
// every CPU of the mask while the mm is in ASID transition), and after each such multi-CPU
// flush consider_global_asid() may give it one: in 1 of 32 jiffies per task
// ((pid & 0x1f) == (jiffies & 0x1f)) and only when more than 3 CPUs actively run it.
// From then on flush_tlb_mm_range() takes path (a), broadcast_tlb_flush():
//   INVLPGB of the kernel PCID in invlpgb_count_max-page chunks (a whole-PCID INVLPGB for a
//   full flush); no user-PCID INVLPGB: no machine here runs PTI (flush_tlb_func models none
//   either), as the kernel does not on Zen 3+ (not affected by Meltdown);
//   finish_asid_transition(): while the mm is in transition, wait out CPUs switching
//   (LOADED_MM_SWITCHING), and if a CPU still runs it on a dynamic ASID, IPI-flush the whole
//   mm_cpumask (their flush_tlb_func moves them to the global ASID, step 3) and return; if
//   none does, clear asid_transition;
//   __tlbsync(): the initiator stalls until its INVLPGBs completed system-wide.
// No remote CPU runs software for a broadcast flush.
//
// Global ASIDs are current on every CPU (GlobalAsidFlavour::every_cpu). The machine must have
// INVLPGB (tlb.invlpgb_count_max > 0).
// Global ASIDs are never freed by the workloads here (no mm teardown is modeled);
// global_asids().mm_free_global_asid() is the destroy_context() hook for those that will.
#pragma once

#include <memory>

#include "kernel/tlbflush/global_asid_protocol.h"

namespace ipisim::kernel {

using InvlpgbFlushStats = GlobalAsidFlushStats;

class InvlpgbFlush : public GlobalAsidProtocol {
public:
    [[nodiscard]] std::string machine_support(const hw::MachineSpec& machine) const override;
    [[nodiscard]] GlobalAsidFlavour global_asid_flavour() const override { return GlobalAsidFlavour::every_cpu; }
    void attach(mm::Mm& mm) override;
    sim::Task<> broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info) override;

protected:
    // __tlbsync(): wait for this CPU's INVLPGBs to complete system-wide (the checker's mutant
    // invlpgb-no-tlbsync overrides it with nothing).
    virtual sim::Task<> __tlbsync(hw::Cpu& self);
    [[nodiscard]] hw::Invlpgb& invlpgb() const { return *invlpgb_; }

private:
    hw::Invlpgb* invlpgb_ = nullptr;
};

}  // namespace ipisim::kernel
