// smp_call_rar_many() of RAR RFC v4 (arch/x86/mm/rar.c; docs/mechanisms.md §3.2): one payload slot
// per CPU number under its lock for the whole send-and-wait, PENDING into every target's
// action vector, one RAR IPI to every target (xAPIC: one ICR-idle wait per target), then a
// spin on each target's action byte in CPU order.
//
// The self CPU is not removed from the mask (v4 flushes the local TLB through RAR too): its
// own byte is set, the RAR IPI goes to itself, and its microcode processes the slot.
#include "kernel/costs.h"
#include "kernel/rar/rar.h"
#include "sim/registry.h"

namespace ipisim::kernel {

namespace {

class RarNaive final : public Rar {
public:
    sim::Task<> smp_call_rar_many(hw::Cpu& self, const hw::CpuMask& mask, hw::Pcid pcid, uint64_t start,
                                  uint64_t end) override {
        static const uint32_t label = hw::profile_label("smp_call_rar_many");
        auto scope = self.function(label, hw::Activity::kernel);
        const uint64_t pages = rar_pages(start, end);
        co_await self.compute_cycles(sim::Cycles(costs::smp_call_rar_many));

        hw::CpuMask& dest_mask = rar_cpu_mask(self.id());
        rar_dest_mask(mask, dest_mask);
        // Some callers race with other CPUs changing the passed mask.
        if (dest_mask.empty()) co_return;
        ++stats_.calls;

        const uint32_t payload_nr = co_await get_payload_slot(self);
        co_await set_payload(self, payload_nr, pcid, start, pages);
        for (const hw::CpuId cpu : dest_mask.to_vector()) co_await set_action_entry(self, payload_nr, cpu);

        // Send a message to all CPUs in the map.
        co_await native_send_rar_ipi(self, dest_mask);

        for (const hw::CpuId cpu : dest_mask.to_vector()) co_await wait_for_action_done(self, payload_nr, cpu);

        co_await free_payload_slot(self, payload_nr);
    }
};

const sim::Registration<Rar, RarNaive> reg("rar", "naive",
                                           "RAR RFC v4 smp_call_rar_many: RAR IPI to every target, spin on each");

}  // namespace

}  // namespace ipisim::kernel
