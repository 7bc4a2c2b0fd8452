// Intel RAR TLB flushing with global ASIDs (RAR RFC v3 7/7 and v4 on top of the INVLPGB global
// ASID code; docs/mechanisms.md §3.3). Registered as tlb_flush "rar-naive" and "rar-optimized"
// (rar_naive.cpp, rar_optimized.cpp), which differ only in the smp_call_rar_many() variant
// (kernel/rar/: "naive" = RFC v4, "optimized" = seed 000's rar_pending patch).
//
// Until an mm has a global ASID it is flushed exactly like `ipi`, and after each such
// multi-CPU flush consider_global_asid() may give it one (the INVLPGB rule: in 1 of 32 jiffies
// per task, and only when more than 3 CPUs actively run it). From then on flush_tlb_mm_range()
// takes path (a), broadcast_tlb_flush() = rar_tlb_flush():
//   smp_call_rar_many(mm_cpumask, kern_pcid(global asid), start, end), then the local
//   flush_tlb_func() if this CPU is in mm_cpumask; then finish_asid_transition() as with
//   INVLPGB (a RAR payload carries the global PCID only: stragglers still on a dynamic ASID
//   are moved over by IPI).
// A global ASID is current only on the CPUs of mm_cpumask (Mm GlobalAsidFlavour::rar): a CPU
// newly set in the mask flushes at switch-in, trim rounds still use IPIs, and at ASID
// wrap-around reset_global_asid_space() runs flush_tlb_all() instead of
// invlpgb_flush_all_nonglobals().
//
// [A] flush_tlb_all() here is one RAR to every online CPU (kernel flush: pcid 0, all PCIDs,
// globals included), not on_each_cpu(do_flush_tlb_all). The reset runs under global_asid_lock
// with IRQs off, and with IPIs that deadlocks as soon as two tasks pass consider_global_asid()
// in the same jiffy (pids 32 apart, from 33 threads on): the holder waits for the IPI of the
// CPU spinning on the lock with IRQs off (the kernel's smp_call_function_many() WARNs on
// IRQs-off callers for this reason). RAR is processed by microcode even with IRQs off.
//
// [A] IPI flushes of an mm with a global ASID (trim rounds, transition stragglers) go to every
// CPU of the mask, lazy ones included (on_each_cpu_mask): a lazy CPU skipped by
// should_flush_tlb() would come back to its global ASID without a flush; lazy receivers leave
// the mask instead.
//
// One kernel::Rar per machine (per Mm: one protocol instance each), made in attach(); the
// machine must have RAR (tlb.rar_payloads > 0).
#pragma once

#include <memory>
#include <string>

#include "kernel/rar/rar.h"
#include "kernel/tlbflush/global_asid.h"
#include "kernel/tlbflush/global_asid_protocol.h"

namespace ipisim::kernel {

using RarFlushStats = GlobalAsidFlushStats;

class RarFlush : public GlobalAsidProtocol {
public:
    // `variant`: the registered kernel::Rar ("naive", "optimized").
    explicit RarFlush(std::string variant) : variant_(std::move(variant)) {}

    [[nodiscard]] std::string check(const hw::MachineSpec& machine) const override;
    void attach(mm::Mm& mm) override;
    sim::Task<> flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) override;
    sim::Task<> broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info) override;

    // flush_tlb_all() with RAR: smp_call_rar_many(cpu_online_mask, 0, 0, TLB_FLUSH_ALL).
    sim::Task<> flush_tlb_all(hw::Cpu& self);

    [[nodiscard]] Rar& rar() { return *rar_; }

private:
    std::string variant_;
    std::unique_ptr<Rar> rar_;
};

}  // namespace ipisim::kernel
