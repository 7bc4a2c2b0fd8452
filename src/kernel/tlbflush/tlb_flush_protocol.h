// Remote TLB invalidation protocols: how flush_tlb_mm_range() reaches the other CPUs that may
// cache an mm's translations. One registered implementation per file (kind "tlb_flush"); the
// registered ones, with a line each, are listed by `ipisim list`. How to write one:
// docs/protocols.md.
//
// flush_tlb_mm_range() (kernel/mm/tlb.cpp) calls, in the kernel's order:
//   1. uses_broadcast(mm) -> broadcast_tlb_flush(self, info)   [path (a): global ASID]
//   2. else, if another CPU is in mm_cpumask: flush_tlb_multi(self, cpumask, info), then
//      consider_global_asid(self, mm)                          [path (b)]
//   3. else the local flush_tlb_func                           [path (c)]
// flush_tlb_multi is the paravirt hook; its native version, native_flush_tlb_multi() (once, in
// kernel/mm/tlb.cpp), IPIs the CPUs should_flush_tlb() selects, or every CPU of the mask when
// ipi_flush_must_reach_all(info). Traits the mm layer asks: global_asid_flavour() (whether
// global ASIDs exist and on which CPUs they are current) and machine_support(machine).
// A protocol reaches the mm layer (per-CPU TLBs, cpu_tlbstate, flush_tlb_func, the Smp layer,
// the Platform) through the Mm it is attached to.
#pragma once

#include <memory>
#include <string>

#include "hw/cpu/cpu.h"
#include "hw/cpumask.h"
#include "hw/machine.h"
#include "kernel/mm/mm_types.h"
#include "sim/task.h"

namespace ipisim::hw {
struct MachineSpec;
}

namespace ipisim::kernel::mm {
class Mm;
}

namespace ipisim::kernel {

struct RarCallStats;
struct LatrStats;

// Which CPUs a global ASID is kept current on (docs/mechanisms.md §2.8, §3.3).
//   none:       no global ASIDs (no X86_FEATURE_INVLPGB / RAR): every mm uses dynamic ASIDs, and
//               none of the global-ASID checks of switch_mm_irqs_off / flush_tlb_func run.
//   every_cpu:  INVLPGB: broadcasts reach every CPU, so no flush at switch-in, and
//               flush_tlb_func returns at once on a global ASID (step 4).
//   mm_cpumask: RAR: a RAR targets a cpumask, so a CPU newly set in mm_cpumask flushes at
//               switch-in (choose_new_asid(..., new_cpu) returns need_flush = new_cpu), flushes
//               that reach flush_tlb_func by IPI (trim rounds, the local call of rar_tlb_flush)
//               are applied, lazy receivers clear themselves from mm_cpumask before switching
//               to init_mm, and mm_cpumask trim rounds still go by IPI.
enum class GlobalAsidFlavour : uint8_t { none, every_cpu, mm_cpumask };

class TlbFlushProtocol {
public:
    virtual ~TlbFlushProtocol() = default;

    // "" when the protocol can run on `machine`, else the reason, phrased to follow the
    // protocol's name ("needs a machine with RAR (tlb.rar_payloads > 0)"). Checked before a
    // run starts; the default: the x86 TLB code flush_tlb_mm_range() belongs to needs x86.
    [[nodiscard]] virtual std::string machine_support(const hw::MachineSpec& machine) const;
    [[nodiscard]] virtual GlobalAsidFlavour global_asid_flavour() const { return GlobalAsidFlavour::none; }

    // Called once, when the Mm layer of a machine is built with this protocol (after
    // machine_support() said yes and the mm layer set up global ASIDs as the flavour says).
    virtual void attach(mm::Mm& mm) { mm_ = &mm; }

    // flush_tlb_multi(cpumask, info): make every CPU of `cpumask` that may hold stale
    // translations of info.mm apply `info` (the caller included if it is in the mask, as
    // SCF_RUN_LOCAL does), and return when they have. Default: native_flush_tlb_multi().
    virtual sim::Task<> flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info);
    // native_flush_tlb_multi()'s choice: on_each_cpu_mask() (every CPU of the mask, lazy ones
    // included) instead of on_each_cpu_cond_mask(should_flush_tlb). Awaited as its first step,
    // so the loads it makes are charged there. Default: info.freed_tables.
    virtual sim::Task<bool> ipi_flush_must_reach_all(hw::Cpu& self, const mm::FlushTlbInfo& info);

    // Lazy completion (LATR): a protocol whose flush_tlb_multi() may return before every target
    // applied the flush says so here, and then owns the release of what the flush protects:
    // defer_release(self, r) (awaited by Mm::tlb_release() right after the flush on `self`)
    // returns true when it took `r`, to call mm().release_now() once every target applied the
    // flush, and false when the flush was complete on return (r is then released at once).
    // switch_mm_done(cpu) runs at the end of every switch_mm_irqs_off() (IRQs off), for
    // protocols that apply pending work at a context switch. Defaults: eager, nothing.
    [[nodiscard]] virtual bool defers_release() const { return false; }
    virtual sim::Task<bool> defer_release(hw::Cpu& self, mm::TlbRelease& r);
    [[nodiscard]] virtual bool hooks_context_switch() const { return false; }
    virtual sim::Task<> switch_mm_done(hw::Cpu& cpu);

    // Path (a): mm_global_asid(mm) != 0. Protocols without global ASIDs never take it.
    [[nodiscard]] virtual bool uses_broadcast(const mm::MmStruct& /*mm*/) const { return false; }
    virtual sim::Task<> broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info);
    // After path (b): consider_global_asid(mm). Default: nothing.
    virtual sim::Task<> consider_global_asid(hw::Cpu& self, mm::MmStruct& mm);

    // The smp_call_rar_many() counters of a RAR protocol (claims, loop-backs, unprocessed
    // waits); nullptr for the others.
    [[nodiscard]] virtual const RarCallStats* rar_call_stats() const { return nullptr; }
    // LATR's counters (lazy flushes, fallbacks, states applied at ticks and switches); nullptr
    // for the other protocols.
    [[nodiscard]] virtual const LatrStats* latr_stats() const { return nullptr; }

protected:
    [[nodiscard]] mm::Mm& mm() const { return *mm_; }

private:
    mm::Mm* mm_ = nullptr;
};

// The registered protocol `name`; std::invalid_argument listing the registered names when
// unknown.
std::unique_ptr<TlbFlushProtocol> make_tlb_flush_protocol(const std::string& name);
// "" if the registered protocol `name` can run on `machine`, else "\"name\" on machine M: reason"
// (machine_support()).
std::string tlb_flush_protocol_check(const std::string& name, const hw::MachineSpec& machine);
// "invlpgb, ipi, ..." (sorted).
std::string tlb_flush_protocol_names();

}  // namespace ipisim::kernel
