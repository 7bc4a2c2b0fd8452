// smp_call_rar_many() of RAR RFC v4 (arch/x86/mm/rar.c; docs/mechanisms.md §3.2), the part after
// PENDING was written into every target's action vector (under the slot's lock, held for the
// whole send-and-wait): one RAR IPI to every target (xAPIC: one ICR-idle wait per target),
// then a spin on each target's action byte, in the placement's order (RFC v4: CPU number), the
// next targets' action lines read ahead by the out-of-order window while one is outstanding.
//
// The self CPU is not removed from the mask (v4 flushes the local TLB through RAR too): its
// own byte is set, the RAR IPI goes to itself, and its microcode processes the slot.
#include "kernel/rar/smp_call_rar.h"

namespace ipisim::kernel {

namespace {

class RarNaiveSend final : public RarSendPolicy {
public:
    sim::Task<> send_and_wait(hw::Cpu& self, uint32_t payload_nr, hw::CpuMask& dest_mask,
                              const std::vector<hw::CpuId>& order) override {
        // Send a message to all CPUs in the map.
        co_await rar().native_send_rar_ipi(self, dest_mask);

        co_await rar().wait_for_all(self, payload_nr, order);
    }
};

}  // namespace

std::unique_ptr<RarSendPolicy> rar_naive_send() {
    return std::make_unique<RarNaiveSend>();
}

}  // namespace ipisim::kernel
