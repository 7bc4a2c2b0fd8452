// The RAR flush protocols (arch/x86/mm/tlb.c with the RAR RFC): see rar_flush.h.
#include "kernel/tlbflush/rar_flush.h"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/cpu/spin.h"
#include "kernel/mm/mm.h"
#include "kernel/rar/rar_tlb_flush.h"

namespace ipisim::kernel {

void RarFlush::attach(mm::Mm& m) {
    TlbFlushProtocol::attach(m);
    if (m.platform().rar() == nullptr) {
        throw std::invalid_argument(fmt::format("tlb_flush \"rar-{}\" needs a machine with RAR (tlb.rar_payloads > 0); {} has none",
                                                variant_, m.platform().spec().name));
    }
    rar_ = make_rar(variant_, m.platform(), m.smp().cpu_online_mask());
    m.set_broadcast_tlb_flush(true);  // global ASIDs with X86_FEATURE_INVLPGB || X86_FEATURE_RAR
    m.set_global_asid_flavour(mm::GlobalAsidFlavour::rar);
    asids_ = std::make_unique<GlobalAsids>(
        m.mem(), [this](hw::Cpu& cpu) { return flush_tlb_all(cpu); }, m.nr_dyn_asids());
}

bool RarFlush::uses_broadcast(const mm::MmStruct& mm) const { return mm.global_asid->peek() != 0; }

sim::Task<bool> RarFlush::mm_in_asid_transition(hw::Cpu& self, mm::MmStruct* mm) {
    if (mm == nullptr) co_return false;
    const uint64_t t = co_await this->mm().mem().load(self.id(), *mm->asid_transition);
    co_return t != 0;
}

sim::Task<> RarFlush::flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) {
    static const uint32_t label = hw::profile_label("native_flush_tlb_multi");
    auto scope = self.function(label, hw::Activity::kernel);
    mm::Mm& m = mm();
    SmpCallFunc func = [&m, &info](hw::Cpu& c) { return m.flush_tlb_func(c, info); };
    const bool transition = co_await mm_in_asid_transition(self, info.mm);
    bool global = false;
    if (info.mm != nullptr) global = co_await m.mem().load(self.id(), *info.mm->global_asid) != 0;
    if (info.freed_tables || transition || global) {
        // on_each_cpu_mask(): every CPU of the mask, lazy ones included (rar_flush.h [A]).
        co_await m.smp().on_each_cpu_cond_mask(self, nullptr, func, true, cpumask);
    } else {
        SmpCondFunc cond = [&m, &info](hw::Cpu& s, hw::CpuId t) { return m.should_flush_tlb(s, t, info); };
        co_await m.smp().on_each_cpu_cond_mask(self, cond, func, true, cpumask);
    }
}

sim::Task<bool> RarFlush::mm_active_cpus_exceeds(hw::Cpu& self, mm::MmStruct& mm, unsigned threshold) {
    mm::Mm& m = this->mm();
    const hw::CpuMask cpumask = co_await m.read_mm_cpumask(self, mm);
    if (cpumask.weight() <= threshold) co_return false;
    unsigned count = 0;
    for (hw::CpuId c = cpumask.first(); c < cpumask.nr_cpus(); c = cpumask.next(c + 1)) {
        mm::CpuTlbState& st = m.tlbstate(c);
        const uint64_t loaded = co_await m.mem().load(self.id(), *st.loaded_mm);
        if (loaded != mm.id) continue;
        const uint64_t lazy = co_await m.mem().load(self.id(), *st.is_lazy);
        if (lazy != 0) continue;
        if (++count > threshold) co_return true;
    }
    co_return false;
}

sim::Task<> RarFlush::consider_global_asid(hw::Cpu& self, mm::MmStruct& mm) {
    if ((this->mm().task_pid(self.id()) & 0x1f) != (this->mm().jiffies() & 0x1f)) co_return;
    ++stats_.considered;
    const bool exceeds = co_await mm_active_cpus_exceeds(self, mm, kActiveCpusThreshold);
    if (!exceeds) co_return;
    ++stats_.active_exceeded;
    co_await asids_->use_global_asid(self, mm);
}

sim::Task<> RarFlush::flush_tlb_all(hw::Cpu& self) {
    // flush_tlb_all() on a RAR machine: one RAR of the kernel "all" type (pcid 0: every PCID,
    // globals included, as do_flush_tlb_all) to every online CPU. Called with global_asid_lock
    // held and IRQs off; see rar_flush.h for why not on_each_cpu(do_flush_tlb_all).
    ++stats_.flush_tlb_all;
    co_await rar_->smp_call_rar_many(self, mm().smp().cpu_online_mask(), 0, 0, RAR_TLB_FLUSH_ALL);
}

sim::Task<> RarFlush::finish_asid_transition(hw::Cpu& self, const mm::FlushTlbInfo& info) {
    mm::Mm& m = mm();
    mm::MmStruct& target = *info.mm;
    const uint64_t bc_asid = co_await m.mem().load(self.id(), *target.global_asid);
    const bool transition = co_await mm_in_asid_transition(self, &target);
    if (!transition) co_return;
    const hw::CpuMask cpumask = co_await m.read_mm_cpumask(self, target);
    for (hw::CpuId c = cpumask.first(); c < cpumask.nr_cpus(); c = cpumask.next(c + 1)) {
        mm::CpuTlbState& st = m.tlbstate(c);
        const uint64_t loaded = co_await hw::spin_until(
            self, m.mem(), *st.loaded_mm, [](uint64_t v) { return v != mm::LOADED_MM_SWITCHING; });
        if (loaded != target.id) continue;
        const uint64_t asid = co_await m.mem().load(self.id(), *st.loaded_mm_asid);
        if (asid != bc_asid) {
            ++stats_.transition_ipis;
            co_await flush_tlb_multi(self, cpumask, info);
            co_return;
        }
    }
    co_await m.mem().store(self.id(), *target.asid_transition, 0);
    ++stats_.transitions_finished;
}

sim::Task<> RarFlush::broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info) {
    ++stats_.broadcasts;
    const uint64_t asid = co_await mm().mem().load(self.id(), *info.mm->global_asid);
    const auto kern_pcid = static_cast<hw::Pcid>(asid + 1);
    co_await rar_tlb_flush(*rar_, mm(), self, info, kern_pcid);
    co_await finish_asid_transition(self, info);
}

}  // namespace ipisim::kernel
