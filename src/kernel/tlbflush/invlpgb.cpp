// The INVLPGB flush protocol (arch/x86/mm/tlb.c with CONFIG_BROADCAST_TLB_FLUSH): see invlpgb.h.
#include "kernel/tlbflush/invlpgb.h"

#include <algorithm>

#include "kernel/mm/mm.h"
#include "sim/registry.h"

namespace ipisim::kernel {

std::string InvlpgbFlush::machine_support(const hw::MachineSpec& machine) const {
    std::string why = GlobalAsidProtocol::machine_support(machine);
    if (why.empty() && machine.tlb.invlpgb_count_max == 0)
        why = "needs a machine with INVLPGB (tlb.invlpgb_count_max > 0)";
    return why;
}

void InvlpgbFlush::attach(mm::Mm& m) {
    TlbFlushProtocol::attach(m);
    invlpgb_ = m.platform().invlpgb();
    asids_ = std::make_unique<GlobalAsids>(m.mem(), *invlpgb_, m.nr_dyn_asids());
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
    co_await __tlbsync(self);
}

sim::Task<> InvlpgbFlush::__tlbsync(hw::Cpu& self) {
    co_await invlpgb_->tlbsync(self);
}

namespace {
const sim::Registration<TlbFlushProtocol, InvlpgbFlush> reg(
    "tlb_flush", "invlpgb", "AMD INVLPGB broadcast with global ASIDs; IPIs until an mm is active on > 3 CPUs");
}  // namespace

}  // namespace ipisim::kernel
