// xAPIC, MMIO interface (docs/mechanisms.md 3.4, 4.3): the ICR is two 32-bit registers of the
// local APIC page. Writing ICR2 sets the destination (APIC id); writing the low ICR (vector,
// delivery mode) sends to it and sets the delivery-status bit (APIC_ICR_BUSY), which software
// polls before the next send.
//
// Cost model: each ICR/ICR2 write costs `icr_write`, each ICR read `icr_read`. After the ICR
// write the sender's ICR stays busy for
//     icr_busy + icr_busy_per_inflight * (messages in the fabric at that moment):
// the local APIC holds the message until the interconnect takes it, and a loaded fabric takes
// longer; so simultaneous senders slow each other down although each polls only its own
// register. The busy state outlives a send: the next one waits for it too.
#pragma once

#include <cstdint>
#include <vector>

#include "config/schema.h"
#include "hw/intc/interrupt_controller.h"

namespace ipisim::hw {

struct XapicParams {
    sim::Picos icr_write;              // one ICR or ICR2 MMIO write
    sim::Picos icr_read;               // one ICR MMIO read
    sim::Picos icr_busy;               // delivery-status busy time after a send
    sim::Picos icr_busy_per_inflight;  // extra busy time per message already in flight
};
const config::Schema<XapicParams>& xapic_params_schema();

class XapicMmio final : public InterruptController {
public:
    [[nodiscard]] uint32_t apic_id(CpuId c) const { return static_cast<uint32_t>(topology().hw_id(c)); }

    // native_apic_mem_write(APIC_ICR2, SET_XAPIC_DEST_FIELD(apic_id)): the destination.
    sim::Task<> write_icr2(Cpu& sender, uint32_t apic_id);
    // native_apic_mem_write(APIC_ICR, vector | mode): sends to the ICR2 destination when it
    // retires and sets the delivery-status bit.
    sim::Task<> write_icr(Cpu& sender, uint32_t vector, DeliveryMode mode = DeliveryMode::fixed);
    // A loop of ICR reads until one sees the delivery-status bit clear, fast-forwarded: each
    // read returns the state at its end, so the loop makes max(1, ceil(busy_left / icr_read))
    // reads (one read when idle; the busy time itself when reads are free).
    sim::Task<> read_icr_until_idle(Cpu& sender);

private:
    void on_attach() override;
    [[nodiscard]] const XapicParams& params() const { return *params_; }
    // The ICR busy bookkeeping: busy from now until icr_idle_at_[sender].
    void set_icr_busy(const Cpu& sender);
    [[nodiscard]] sim::Picos icr_busy_left(const Cpu& sender) const;

    const XapicParams* params_ = nullptr;
    std::vector<CpuId> cpu_of_id_;         // APIC id -> CPU
    std::vector<uint32_t> icr2_;           // per CPU: the destination its ICR2 holds
    std::vector<sim::Picos> icr_idle_at_;  // per CPU: when its delivery-status bit clears
};

// xAPIC ids are 8 bits (0xFF is broadcast): "" when every CPU of the topology fits.
std::string xapic_topology_problem(const Topology& topo);

}  // namespace ipisim::hw
