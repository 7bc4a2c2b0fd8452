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
        throw std::invalid_argument(
            fmt::format("tlb_flush \"rar-{}\" needs a machine with RAR (tlb.rar_payloads > 0); {} has none", variant_,
                        m.platform().spec().name));
    }
    rar_ = make_rar(variant_, m.platform(), m.smp().cpu_online_mask(), m.smp().irqchip());
    m.set_broadcast_tlb_flush(true);  // global ASIDs with X86_FEATURE_INVLPGB || X86_FEATURE_RAR
    m.set_global_asid_flavour(mm::GlobalAsidFlavour::rar);
    asids_ = std::make_unique<GlobalAsids>(
        m.mem(), [this](hw::Cpu& cpu) { return flush_tlb_all(cpu); }, m.nr_dyn_asids());
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

sim::Task<> RarFlush::flush_tlb_all(hw::Cpu& self) {
    // flush_tlb_all() on a RAR machine: one RAR of the kernel "all" type (pcid 0: every PCID,
    // globals included, as do_flush_tlb_all) to every online CPU. Called with global_asid_lock
    // held and IRQs off; see rar_flush.h for why not on_each_cpu(do_flush_tlb_all).
    ++stats_.flush_tlb_all;
    co_await rar_->smp_call_rar_many(self, mm().smp().cpu_online_mask(), 0, 0, RAR_TLB_FLUSH_ALL);
}

sim::Task<> RarFlush::broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info) {
    ++stats_.broadcasts;
    const uint64_t asid = co_await mm().mem().load(self.id(), *info.mm->global_asid);
    const auto kern_pcid = static_cast<hw::Pcid>(asid + 1);
    co_await rar_tlb_flush(*rar_, mm(), self, info, kern_pcid);
    co_await finish_asid_transition(self, info);
}

}  // namespace ipisim::kernel
