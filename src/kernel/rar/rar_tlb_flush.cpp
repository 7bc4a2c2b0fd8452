#include "kernel/rar/rar_tlb_flush.h"

namespace ipisim::kernel {

sim::Task<> rar_tlb_flush(SmpCallRar& rar, mm::Mm& mm, hw::Cpu& self, const mm::FlushTlbInfo& info, hw::Pcid pcid) {
    static const uint32_t label = hw::profile_label("rar_tlb_flush", hw::LabelCategory::tlb_invalidation);
    auto scope = self.function(label, hw::Activity::kernel);
    const hw::CpuMask cpumask = co_await mm.read_mm_cpumask(self, *info.mm);
    // Flush the remote CPUs (and, as v4 does, this one through its own microcode).
    co_await rar.smp_call_rar_many(self, cpumask, pcid, info.start, info.end);
    // Flush the local TLB, if needed.
    if (cpumask.test(self.id())) {
        self.local_irq_disable();
        co_await mm.flush_tlb_func(self, info);
        co_await self.local_irq_enable();
    }
}

}  // namespace ipisim::kernel
