#include "hw/tlb/tlb_insn.h"

#include "hw/check_hooks.h"

namespace ipisim::hw {

namespace {

sim::Task<> timed(Cpu& cpu, Tlb& tlb, sim::Picos cost, Invalidation inv) {
    co_await cpu.stall(cost);
    tlb.invalidate(inv);
}

}  // namespace

// INVLPG and MOV to CR3 are serializing (Intel SDM vol. 3A §8.3): they wait for the store
// buffer to drain. INVPCID is not on the SDM's list.
sim::Task<> invlpg(Cpu& cpu, Tlb& tlb, Pcid pcid, uint64_t va) {
    co_await cpu.drain_stores();
    co_await timed(cpu, tlb, cpu.spec().tlb.invlpg, Invalidation::page(pcid, va));
}

sim::Task<> write_cr3(Cpu& cpu, Tlb& tlb, Pcid pcid, bool noflush) {
    co_await cpu.drain_stores();
    co_await cpu.stall(cpu.spec().tlb.full_flush);
    if (!noflush) tlb.invalidate(Invalidation::pcid_all(pcid));
    IPISIM_CHECK_HOOK(cr3_written(cpu.id(), pcid));
}

sim::Task<> invpcid_flush_one(Cpu& cpu, Tlb& tlb, Pcid pcid, uint64_t va) {
    return timed(cpu, tlb, cpu.spec().tlb.invpcid_addr, Invalidation::page_nonglobal(pcid, va));
}

sim::Task<> invpcid_flush_single_context(Cpu& cpu, Tlb& tlb, Pcid pcid) {
    return timed(cpu, tlb, cpu.spec().tlb.invpcid_all, Invalidation::pcid_all(pcid));
}

sim::Task<> invpcid_flush_all(Cpu& cpu, Tlb& tlb) {
    return timed(cpu, tlb, cpu.spec().tlb.invpcid_all, Invalidation::all(true));
}

sim::Task<> invpcid_flush_all_nonglobals(Cpu& cpu, Tlb& tlb) {
    return timed(cpu, tlb, cpu.spec().tlb.invpcid_all, Invalidation::all(false));
}

sim::Task<bool> tlb_access(Cpu& cpu, Tlb& tlb, Pcid pcid, uint64_t va, PageSize size, bool global) {
    if (tlb.lookup(pcid, va) != nullptr) co_return true;
    tlb.fill(pcid, va, cpu.now(), size, global);
    co_await cpu.stall(cpu.spec().tlb.refill_per_entry);
    co_return false;
}

}  // namespace ipisim::hw
