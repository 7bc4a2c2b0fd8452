// x2APIC, MSR interface (docs/mechanisms.md 4.2): the ICR is one 64-bit MSR (0x830) with the
// destination in its high half; a write sends at once and there is no delivery-status bit to
// wait for. Registered as "x2apic_phys" and "x2apic_cluster": the same hardware, driven by
// Linux's physical or cluster destination-mode driver (kernel/irqchip).
//
// A write with a destination shorthand (all excluding / including self, as
// __x2apic_send_IPI_shorthand() in arch/x86/kernel/apic/x2apic_phys.c issues for both Linux
// drivers) is one ICR WRMSR too: one message for the package's router, a copy to every CPU.
//
// Cost model: one ICR WRMSR costs `icr_write`; the kernel's weak_wrmsr_fence() (mfence; lfence,
// patched out on AMD where X86_FEATURE_APIC_MSRS_FENCE is clear) costs `fence`.
#pragma once

#include <cstdint>
#include <vector>

#include "config/schema.h"
#include "hw/intc/interrupt_controller.h"

namespace ipisim::hw {

struct X2apicParams {
    sim::Picos icr_write;  // one ICR WRMSR
    sim::Picos fence;      // weak_wrmsr_fence() once per send call; 0 on AMD
};
const config::Schema<X2apicParams>& x2apic_params_schema();

class X2apic final : public InterruptController {
public:
    enum class DestMode : uint8_t { physical, logical };

    // x2APIC id of a CPU, and its logical id in cluster mode (read from APIC_LDR):
    // (cluster << 16) | 1 << (id & 0xF), cluster = id >> 4.
    [[nodiscard]] uint32_t apic_id(CpuId c) const { return static_cast<uint32_t>(topology().hw_id(c)); }
    [[nodiscard]] static uint32_t logical_id(uint32_t apic_id) {
        return ((apic_id >> 4) << 16) | (1U << (apic_id & 0xF));
    }

    // mfence; lfence on the sending CPU (the instructions of weak_wrmsr_fence).
    sim::Task<> wrmsr_fence(Cpu& sender);
    // One WRMSR of the ICR (native_x2apic_icr_write). When it retires the message enters the
    // fabric for each CPU the destination names: physical, the CPU with that x2APIC id;
    // logical, the CPUs of cluster dest >> 16 whose bit is set in dest & 0xFFFF, in CPU order,
    // as one message for the package's interrupt router (DeliveryFabric::route).
    sim::Task<> write_icr(Cpu& sender, uint32_t dest, DestMode mode, uint32_t vector,
                          DeliveryMode delivery = DeliveryMode::fixed);
    // One WRMSR of the ICR with a destination shorthand (destination field 0, ignored): when
    // it retires, one message for the router and a copy to every CPU (but the sender for
    // all_excluding_self), in CPU order.
    sim::Task<> write_icr_shorthand(Cpu& sender, DestShorthand which, uint32_t vector,
                                    DeliveryMode delivery = DeliveryMode::fixed);

private:
    void on_attach() override;
    [[nodiscard]] const X2apicParams& params() const { return *params_; }

    const X2apicParams* params_ = nullptr;
    std::vector<CpuId> cpu_of_id_;                  // x2APIC id -> CPU
    std::vector<std::vector<CpuId>> cluster_cpus_;  // cluster -> its CPUs, ascending
    std::vector<CpuId> group_;                      // scratch: the targets of one logical write
};

}  // namespace ipisim::hw
