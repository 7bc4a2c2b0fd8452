// The INVLPGB flush protocol (arch/x86/mm/tlb.c with CONFIG_BROADCAST_TLB_FLUSH): see invlpgb.h.
#include "kernel/tlbflush/invlpgb.h"

#include <algorithm>
#include <stdexcept>

#include "hw/cpu/spin.h"
#include "kernel/mm/mm.h"
#include "sim/registry.h"

namespace ipisim::kernel {

std::string InvlpgbFlush::check(const hw::MachineSpec& machine) const {
    if (machine.tlb.invlpgb_count_max > 0) return "";
    return "\"invlpgb\" needs a machine with INVLPGB (tlb.invlpgb_count_max > 0); " + machine.name + " has none";
}

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
