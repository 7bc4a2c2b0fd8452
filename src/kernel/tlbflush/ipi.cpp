// The IPI shootdown (native_flush_tlb_multi, docs/mechanisms.md §2.5): the generic cross-call
// layer runs flush_tlb_func on every CPU that should_flush_tlb() selects, the initiator
// included (SCF_RUN_LOCAL, overlapped with remote delivery), and waits for all of them.
// Freed page tables go to every CPU of the mask, lazy ones included.
#include "kernel/mm/mm.h"
#include "kernel/tlbflush/tlb_flush_protocol.h"
#include "sim/registry.h"

namespace ipisim::kernel {

namespace {

class IpiFlush : public TlbFlushProtocol {
public:
    sim::Task<> flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) override {
        static const uint32_t label = hw::profile_label("native_flush_tlb_multi");
        auto scope = self.function(label, hw::Activity::kernel);
        mm::Mm& m = mm();
        SmpCallFunc func = [&m, &info](hw::Cpu& c) { return m.flush_tlb_func(c, info); };
        if (info.freed_tables) {
            // on_each_cpu_mask(cpumask, flush_tlb_func, info, true)
            co_await m.smp().on_each_cpu_cond_mask(self, nullptr, func, true, cpumask);
        } else {
            SmpCondFunc cond = [&m, &info](hw::Cpu& s, hw::CpuId t) { return m.should_flush_tlb(s, t, info); };
            co_await m.smp().on_each_cpu_cond_mask(self, cond, func, true, cpumask);
        }
    }
};

const sim::Registration<TlbFlushProtocol, IpiFlush> reg(
    "tlb_flush", "ipi", "native_flush_tlb_multi: IPIs via on_each_cpu_cond_mask(should_flush_tlb)");

}  // namespace

}  // namespace ipisim::kernel
