// Remote TLB invalidation protocols: how flush_tlb_mm_range() reaches the other CPUs that may
// cache an mm's translations. One registered implementation per file (kind "tlb_flush"):
//
//   ipi            native_flush_tlb_multi(): IPIs through on_each_cpu_cond_mask (tlbflush/ipi.cpp)
//   rar-naive      Intel RAR, RFC v4 smp_call_rar_many()               (rar_naive.cpp)
//   rar-optimized  RAR with the rar_pending shortcut of seed 000        (rar_optimized.cpp)
//   invlpgb        AMD INVLPGB broadcast with global ASIDs              (invlpgb.cpp)
//
// flush_tlb_mm_range() (kernel/mm/tlb.cpp) calls, in the kernel's order:
//   1. uses_broadcast(mm) -> broadcast_tlb_flush(self, info)   [path (a): global ASID]
//   2. else, if another CPU is in mm_cpumask: flush_tlb_multi(self, cpumask, info), then
//      consider_global_asid(self, mm)                          [path (b)]
//   3. else the local flush_tlb_func                           [path (c)]
// A protocol reaches the mm layer (per-CPU TLBs, cpu_tlbstate, flush_tlb_func, the Smp layer,
// the Platform) through the Mm it is attached to. A new protocol:
//
//   class RarNaive : public TlbFlushProtocol {
//       void attach(mm::Mm& mm) override { ...allocate its lines, vectors... }
//       sim::Task<> flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& mask,
//                                   const mm::FlushTlbInfo& info) override { ... }
//   };
//   const sim::Registration<TlbFlushProtocol, RarNaive> reg("tlb_flush", "rar-naive", "...");
#pragma once

#include <memory>
#include <string>

#include "hw/cpu/cpu.h"
#include "hw/cpumask.h"
#include "kernel/mm/mm_types.h"
#include "sim/task.h"

namespace ipisim::hw {
struct MachineSpec;
}

namespace ipisim::kernel::mm {
class Mm;
}

namespace ipisim::kernel {

class TlbFlushProtocol {
public:
    virtual ~TlbFlushProtocol() = default;

    // Whether the protocol can run on `machine`: "" if it can, else the problem. Checked before
    // any simulation, so a mismatch is a configuration error at the [kernel] tlb_flush key.
    [[nodiscard]] virtual std::string check(const hw::MachineSpec& /*machine*/) const { return ""; }

    // Called once, when the Mm layer of a machine is built with this protocol.
    virtual void attach(mm::Mm& mm) { mm_ = &mm; }

    // flush_tlb_multi(cpumask, info): make every CPU of `cpumask` that may hold stale
    // translations of info.mm apply `info` (the caller included if it is in the mask, as
    // SCF_RUN_LOCAL does), and return when they have.
    virtual sim::Task<> flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) = 0;

    // Path (a): mm_global_asid(mm) != 0. Protocols without global ASIDs never take it.
    [[nodiscard]] virtual bool uses_broadcast(const mm::MmStruct& /*mm*/) const { return false; }
    virtual sim::Task<> broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info);
    // After path (b): consider_global_asid(mm). Default: nothing.
    virtual sim::Task<> consider_global_asid(hw::Cpu& self, mm::MmStruct& mm);

protected:
    [[nodiscard]] mm::Mm& mm() const { return *mm_; }

private:
    mm::Mm* mm_ = nullptr;
};

// The registered protocol `name`; a config::ConfigError-style std::invalid_argument listing
// the registered names when unknown.
std::unique_ptr<TlbFlushProtocol> make_tlb_flush_protocol(const std::string& name);
// The check() of the registered protocol `name` on `machine` ("" if it can run there).
std::string tlb_flush_protocol_check(const std::string& name, const hw::MachineSpec& machine);
// "invlpgb, ipi, ..." (sorted).
std::string tlb_flush_protocol_names();

}  // namespace ipisim::kernel
