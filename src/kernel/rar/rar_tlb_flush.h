// rar_tlb_flush() of the RAR RFC (v3 7/7, v4; docs/mechanisms.md §3.3): the broadcast path of
// flush_tlb_mm_range() for an mm with a global ASID on a machine with RAR.
//
//   smp_call_rar_many(mm_cpumask(mm), kern_pcid(global asid), start, end);
//   (a second call for the user PCID under PTI: no PTI on the modeled machines)
//   if this CPU is in mm_cpumask(mm): flush_tlb_func(info) with IRQs off.
//
// The RAR flush protocols (kernel/tlbflush/rar_flush.h) call it from broadcast_tlb_flush()
// once the mm layer has global ASIDs (mm_global_asid, use_global_asid,
// and the switch-in flush of a CPU newly set in mm_cpumask): a payload carries one PCID, so
// every target must tag the mm's translations with the same one.
#pragma once

#include "hw/cpu/cpu.h"
#include "hw/tlb/tlb.h"
#include "kernel/mm/mm.h"
#include "kernel/rar/smp_call_rar.h"
#include "sim/task.h"

namespace ipisim::kernel {

sim::Task<> rar_tlb_flush(SmpCallRar& rar, mm::Mm& mm, hw::Cpu& self, const mm::FlushTlbInfo& info, hw::Pcid pcid);

}  // namespace ipisim::kernel
