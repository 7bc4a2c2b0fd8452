// The local TLB instructions, timed on the CPU that executes them (x86 names, as in
// arch/x86/include/asm/tlbflush.h and asm/invpcid.h). Each is an uninterruptible stall of its
// machine-file cost ([tlb]); its invalidation takes effect when it retires (end of the stall),
// so a translation filled before the instruction returned is gone afterwards.
//
//   co_await hw::invlpg(cpu, tlb, pcid, addr);              // tlb.invlpg
//   co_await hw::write_cr3(cpu, tlb, pcid, /*noflush=*/false);  // tlb.full_flush
//   bool hit = co_await hw::tlb_access(cpu, tlb, pcid, addr);  // miss: a page walk
#pragma once

#include <cstdint>

#include "hw/cpu/cpu.h"
#include "hw/tlb/tlb.h"
#include "sim/task.h"

namespace ipisim::hw {

// INVLPG (cost invlpg): the PCID's translation of the page holding va, and a global one.
sim::Task<> invlpg(Cpu& cpu, Tlb& tlb, Pcid pcid, uint64_t va);
// MOV CR3 (cost full_flush). Without CR3_NOFLUSH it flushes the PCID's non-global entries
// (with PCIDs off the kernel always uses PCID 0, so that is everything non-global).
sim::Task<> write_cr3(Cpu& cpu, Tlb& tlb, Pcid pcid, bool noflush);
// INVPCID type 0, individual address (cost invpcid_addr): non-global translation of va.
sim::Task<> invpcid_flush_one(Cpu& cpu, Tlb& tlb, Pcid pcid, uint64_t va);
// INVPCID type 1, single context (cost invpcid_all [A]: no separate figure).
sim::Task<> invpcid_flush_single_context(Cpu& cpu, Tlb& tlb, Pcid pcid);
// INVPCID type 2, all contexts including globals (cost invpcid_all).
sim::Task<> invpcid_flush_all(Cpu& cpu, Tlb& tlb);
// INVPCID type 3, all contexts except globals (cost invpcid_all).
sim::Task<> invpcid_flush_all_nonglobals(Cpu& cpu, Tlb& tlb);

// A memory access's translation: a hit costs nothing here (part of the access); a miss is a
// page walk that fills the entry at its start (so an invalidation arriving during the walk
// removes it, conservatively) and stalls refill_per_entry. Returns whether it hit.
sim::Task<bool> tlb_access(Cpu& cpu, Tlb& tlb, Pcid pcid, uint64_t va, PageSize size = PageSize::size_4k,
                           bool global = false);

}  // namespace ipisim::hw
