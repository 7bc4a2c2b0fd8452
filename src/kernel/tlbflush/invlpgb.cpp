// The INVLPGB flush protocol (arch/x86/mm/tlb.c with CONFIG_BROADCAST_TLB_FLUSH): see invlpgb.h.
#include "kernel/tlbflush/invlpgb.h"

#include <algorithm>
#include <stdexcept>

#include "hw/cpu/spin.h"
#include "kernel/mm/mm.h"
#include "sim/registry.h"

namespace ipisim::kernel {

void InvlpgbFlush::attach(mm::Mm& m) {
    TlbFlushProtocol::attach(m);
    invlpgb_ = m.platform().invlpgb();
    if (invlpgb_ == nullptr) {
        throw std::invalid_argument("tlb_flush \"invlpgb\" needs a machine with INVLPGB (tlb.invlpgb_count_max > 0); " +
                                    m.platform().spec().name + " has none");
    }
    m.set_broadcast_tlb_flush(true);  // X86_FEATURE_INVLPGB
    asids_ = std::make_unique<GlobalAsids>(m.mem(), *invlpgb_, m.nr_dyn_asids());
}

bool InvlpgbFlush::uses_broadcast(const mm::MmStruct& mm) const {
    // mm_global_asid(mm): the context line is this CPU's, just after inc_mm_tlb_gen().
    return mm.global_asid->peek() != 0;
}

sim::Task<bool> InvlpgbFlush::mm_in_asid_transition(hw::Cpu& self, mm::MmStruct* mm) {
    if (mm == nullptr) co_return false;
    const uint64_t t = co_await this->mm().mem().load(self.id(), *mm->asid_transition);
    co_return t != 0;
}

sim::Task<> InvlpgbFlush::flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) {
    // native_flush_tlb_multi(), as the ipi protocol, plus the ASID-transition case.
    static const uint32_t label = hw::profile_label("native_flush_tlb_multi");
    auto scope = self.function(label, hw::Activity::kernel);
    mm::Mm& m = mm();
    SmpCallFunc func = [&m, &info](hw::Cpu& c) { return m.flush_tlb_func(c, info); };
    const bool transition = co_await mm_in_asid_transition(self, info.mm);
    if (info.freed_tables || transition) {
        // on_each_cpu_mask(): every CPU of the mask, lazy ones and stragglers included.
        co_await m.smp().on_each_cpu_cond_mask(self, nullptr, func, true, cpumask);
    } else {
        SmpCondFunc cond = [&m, &info](hw::Cpu& s, hw::CpuId t) { return m.should_flush_tlb(s, t, info); };
        co_await m.smp().on_each_cpu_cond_mask(self, cond, func, true, cpumask);
    }
}

sim::Task<bool> InvlpgbFlush::mm_active_cpus_exceeds(hw::Cpu& self, mm::MmStruct& mm, unsigned threshold) {
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

sim::Task<> InvlpgbFlush::consider_global_asid(hw::Cpu& self, mm::MmStruct& mm) {
    // Check every once in a while: 1 jiffy in 32 for a given task.
    if ((this->mm().task_pid(self.id()) & 0x1f) != (this->mm().jiffies() & 0x1f)) co_return;
    ++stats_.considered;
    // Assign a global ASID if the process is active on 4 or more CPUs simultaneously.
    const bool exceeds = co_await mm_active_cpus_exceeds(self, mm, kActiveCpusThreshold);
    if (!exceeds) co_return;
    ++stats_.active_exceeded;
    co_await asids_->use_global_asid(self, mm);
}

sim::Task<> InvlpgbFlush::finish_asid_transition(hw::Cpu& self, const mm::FlushTlbInfo& info) {
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
        const uint64_t loaded = co_await hw::spin_until(
            self, m.mem(), *st.loaded_mm, [](uint64_t v) { return v != mm::LOADED_MM_SWITCHING; });
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

sim::Task<> InvlpgbFlush::broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info) {
    mm::Mm& m = mm();
    ++stats_.broadcasts;
    const bool pmd = info.stride_shift == mm::PMD_SHIFT;
    const uint64_t asid = co_await m.mem().load(self.id(), *info.mm->global_asid);
    const auto kern_pcid = static_cast<hw::Pcid>(asid + 1);
    // Kicked off asynchronously; inc_mm_tlb_gen() ordered the page-table updates before them.
    if (info.end == mm::TLB_FLUSH_ALL) {
        ++stats_.invlpgb;
        co_await invlpgb_->invlpgb(self, hw::InvlpgbOp::single_pcid(kern_pcid));
    } else {
        const uint64_t count_max = m.platform().spec().tlb.invlpgb_count_max;
        uint64_t addr = info.start;
        do {
            uint64_t nr = 1;
            if (info.stride_shift <= mm::PMD_SHIFT) {
                nr = std::clamp<uint64_t>((info.end - addr) >> info.stride_shift, 1, count_max);
            }
            ++stats_.invlpgb;
            co_await invlpgb_->invlpgb(self, hw::InvlpgbOp::user_nr(kern_pcid, addr, static_cast<uint32_t>(nr), pmd));
            addr += nr << info.stride_shift;
        } while (addr < info.end);
    }
    co_await finish_asid_transition(self, info);
    // Wait for the INVLPGBs kicked off above to finish.
    co_await invlpgb_->tlbsync(self);
}

namespace {
const sim::Registration<TlbFlushProtocol, InvlpgbFlush> reg(
    "tlb_flush", "invlpgb", "AMD INVLPGB broadcast with global ASIDs; IPIs until an mm is active on > 3 CPUs");
}  // namespace

}  // namespace ipisim::kernel
