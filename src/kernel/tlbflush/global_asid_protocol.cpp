#include "kernel/tlbflush/global_asid_protocol.h"

#include "hw/cpu/spin.h"
#include "kernel/mm/mm.h"

namespace ipisim::kernel {

bool GlobalAsidProtocol::uses_broadcast(const mm::MmStruct& mm) const {
    // mm_global_asid(mm): the context line is this CPU's, just after inc_mm_tlb_gen().
    return mm.global_asid->peek() != 0;
}

sim::Task<bool> GlobalAsidProtocol::ipi_flush_must_reach_all(hw::Cpu& self, const mm::FlushTlbInfo& info) {
    const bool transition = co_await mm_in_asid_transition(self, info.mm);
    co_return info.freed_tables || transition;
}

sim::Task<bool> GlobalAsidProtocol::mm_in_asid_transition(hw::Cpu& self, mm::MmStruct* mm) {
    if (mm == nullptr) co_return false;
    const uint64_t t = co_await this->mm().mem().load(self.id(), *mm->asid_transition);
    co_return t != 0;
}

sim::Task<bool> GlobalAsidProtocol::mm_active_cpus_exceeds(hw::Cpu& self, mm::MmStruct& mm, unsigned threshold) {
    mm::Mm& m = this->mm();
    const hw::CpuMask cpumask = co_await m.read_mm_cpumask(self, mm);
    // This quick check eliminates most single-threaded programs.
    if (cpumask.weight() <= threshold) co_return false;
    unsigned count = 0;
    for (hw::CpuId c = cpumask.first(); c < cpumask.nr_cpus(); c = cpumask.next(c + 1)) {
        mm::CpuTlbState& st = m.tlbstate(c);
        const uint64_t loaded = co_await m.mem().load(self.id(), *st.loaded_mm);
        if (loaded != mm.id) continue;  // not really running this process
        const uint64_t lazy = co_await m.mem().load(self.id(), *st.is_lazy);
        if (lazy != 0) continue;
        if (++count > threshold) co_return true;
    }
    co_return false;
}

sim::Task<> GlobalAsidProtocol::consider_global_asid(hw::Cpu& self, mm::MmStruct& mm) {
    // Check every once in a while: 1 jiffy in 32 for a given task.
    if ((this->mm().task_pid(self.id()) & 0x1f) != (this->mm().jiffies() & 0x1f)) co_return;
    ++stats_.considered;
    // Assign a global ASID if the process is active on 4 or more CPUs simultaneously.
    const bool exceeds = co_await mm_active_cpus_exceeds(self, mm, kActiveCpusThreshold);
    if (!exceeds) co_return;
    ++stats_.active_exceeded;
    co_await asids_->use_global_asid(self, mm);
}

sim::Task<> GlobalAsidProtocol::finish_asid_transition(hw::Cpu& self, const mm::FlushTlbInfo& info) {
    mm::Mm& m = mm();
    mm::MmStruct& target = *info.mm;
    const uint64_t bc_asid = co_await m.mem().load(self.id(), *target.global_asid);
    const bool transition = co_await mm_in_asid_transition(self, &target);
    if (!transition) co_return;
    const hw::CpuMask cpumask = co_await m.read_mm_cpumask(self, target);
    for (hw::CpuId c = cpumask.first(); c < cpumask.nr_cpus(); c = cpumask.next(c + 1)) {
        mm::CpuTlbState& st = m.tlbstate(c);
        // The remote CPU is context switching: wait, in case it switches to the target mm with
        // an out-of-date ASID.
        const uint64_t loaded = co_await hw::spin_until(self, m.mem(), *st.loaded_mm,
                                                        [](uint64_t v) { return v != mm::LOADED_MM_SWITCHING; });
        if (loaded != target.id) continue;
        const uint64_t asid = co_await m.mem().load(self.id(), *st.loaded_mm_asid);
        if (asid != bc_asid) {
            // A CPU is not on the global ASID yet: the IPI flush makes stragglers move.
            ++stats_.transition_ipis;
            co_await flush_tlb_multi(self, cpumask, info);
            co_return;
        }
    }
    // All the CPUs running this process use the global ASID.
    co_await m.mem().store(self.id(), *target.asid_transition, 0);
    ++stats_.transitions_finished;
}

}  // namespace ipisim::kernel
