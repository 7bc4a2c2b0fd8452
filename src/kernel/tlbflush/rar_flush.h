// Intel RAR TLB flushing with global ASIDs (RAR RFC v3 7/7 and v4 on top of the INVLPGB global
// ASID code; docs/mechanisms.md §3.3). One class, registered once per smp_call_rar_many()
// variant (kernel/rar/smp_call_rar.h: a send policy and a slot/order placement) with one
// RarFlushRegistration line each; `ipisim list` shows the registered ones (kind tlb_flush).
//
// Until an mm has a global ASID it is flushed exactly like `ipi`, and after each such
// multi-CPU flush consider_global_asid() may give it one (the INVLPGB rule: in 1 of 32 jiffies
// per task, and only when more than 3 CPUs actively run it). From then on flush_tlb_mm_range()
// takes path (a), broadcast_tlb_flush() = rar_tlb_flush():
//   smp_call_rar_many(mm_cpumask, kern_pcid(global asid), start, end), then the local
//   flush_tlb_func() if this CPU is in mm_cpumask; then finish_asid_transition() as with
//   INVLPGB (a RAR payload carries the global PCID only: stragglers still on a dynamic ASID
//   are moved over by IPI).
// A global ASID is current only on the CPUs of mm_cpumask (GlobalAsidFlavour::mm_cpumask): a
// CPU newly set in the mask flushes at switch-in, trim rounds still use IPIs, and at ASID
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
// One SmpCallRar per machine (per Mm: one protocol instance each), made in attach(); the
// machine must have RAR (tlb.rar_payloads > 0).
#pragma once

#include <memory>
#include <string>

#include "kernel/rar/smp_call_rar.h"
#include "kernel/tlbflush/global_asid.h"
#include "kernel/tlbflush/global_asid_protocol.h"

namespace ipisim::kernel {

using RarFlushStats = GlobalAsidFlushStats;

class RarFlush final : public GlobalAsidProtocol {
public:
    explicit RarFlush(RarVariant variant) : variant_(variant) {}

    [[nodiscard]] std::string machine_support(const hw::MachineSpec& machine) const override;
    [[nodiscard]] GlobalAsidFlavour global_asid_flavour() const override { return GlobalAsidFlavour::mm_cpumask; }
    void attach(mm::Mm& mm) override;
    // Also every CPU of the mask when the mm has a global ASID (the [A] above).
    sim::Task<bool> ipi_flush_must_reach_all(hw::Cpu& self, const mm::FlushTlbInfo& info) override;
    sim::Task<> broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info) override;

    // flush_tlb_all() with RAR: smp_call_rar_many(cpu_online_mask, 0, 0, TLB_FLUSH_ALL).
    sim::Task<> flush_tlb_all(hw::Cpu& self);

    [[nodiscard]] SmpCallRar& rar() { return *rar_; }
    [[nodiscard]] const RarCallStats* rar_call_stats() const override { return rar_ ? &rar_->stats() : nullptr; }

private:
    RarVariant variant_;
    std::unique_ptr<SmpCallRar> rar_;
};

// Registers tlb_flush `name` as a RarFlush with `variant`, for `ipisim list` with `description`:
//   const RarFlushRegistration reg("rar-naive", "...", {rar_naive_send, cpu_number_placement});
struct RarFlushRegistration {
    RarFlushRegistration(const char* name, const char* description, RarVariant variant);
};

}  // namespace ipisim::kernel
