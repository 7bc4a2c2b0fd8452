// xAPIC, MMIO interface (docs/mechanisms.md 3.4, 3.5, 4.3): the ICR is two 32-bit registers of
// the local APIC page. Writing ICR2 sets the destination (APIC id); writing the low ICR
// (vector, delivery mode) sends to it and sets the delivery-status bit (APIC_ICR_BUSY, "send
// pending"), which software polls before the next send.
//
// Cost model: each ICR/ICR2 write costs `icr_write`, each ICR read `icr_read`. After the ICR
// write the sender's ICR stays busy:
//   * fixed mode (and RAR without the round trip): for
//        icr_busy + W + icr_busy_per_inflight * (messages in the fabric at that moment),
//     W being the message's wait for the package's interrupt router (DeliveryFabric): the
//     local APIC has not completed sending until the router has taken the message and its
//     completion is back (icr_busy: that round trip uncontended, router occupancy included).
//     Every sender of the package queues at the one router, so simultaneous senders slow each
//     other down although each polls only its own register. icr_busy_per_inflight is an older
//     load term (0 where the router is modeled).
//   * RAR mode (APIC_DM_RAR = 0x300, the old remote-read encoding) with rar_round_trip: until
//     the target's reply is back, rar_reply after the target's local APIC accepted the
//     message, which it does only while the target's RAR microcode is not processing
//     (DeliveryFabric's RAR door, hw/tlb/rar.h). The busy end is unknown until then.
// The busy state outlives a send: the next one waits for it too.
//
// Destination shorthand (write_icr_shorthand; __default_send_IPI_shortcut() in
// arch/x86/kernel/apic/ipi.c): one low-ICR write with the shorthand bits, no ICR2 (the
// destination field is ignored); one message for the package's router, a copy to every CPU
// (but the sender for all-excluding-self). The SDM (vol. 3A, "Issuing Interprocessor
// Interrupts", ICR delivery status: "Send Pending ... has not completed sending the last
// IPI") publishes no busy time, for a broadcast or otherwise. The model keeps the unicast
// rule: busy for icr_busy + the router wait + the load term, the broadcast being one message
// for the router. That the broadcast's busy time equals a unicast's is an assumption
// (docs/mechanisms.md §4.6); no parameter of its own. A round-trip RAR has one target and
// cannot use a shorthand (std::invalid_argument).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/schema.h"
#include "hw/intc/interrupt_controller.h"
#include "sim/signal.h"

namespace ipisim::hw {

struct XapicParams {
    sim::Picos icr_write;              // one ICR or ICR2 MMIO write
    sim::Picos icr_read;               // one ICR MMIO read
    sim::Picos icr_busy;               // delivery-status busy time after a send (router occupancy included)
    sim::Picos icr_busy_per_inflight;  // extra busy time per message already in flight
    bool rar_round_trip = false;       // a RAR-mode send is busy until the target's reply
    sim::Picos rar_reply;              // round trip: target acceptance -> delivery status idle
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
    // native_apic_mem_write(APIC_ICR, shorthand | vector): sends to every CPU (but the sender
    // for all_excluding_self) when it retires, as one message for the router, and sets the
    // delivery-status bit like write_icr(). ICR2 is neither read nor changed.
    sim::Task<> write_icr_shorthand(Cpu& sender, DestShorthand which, uint32_t vector,
                                    DeliveryMode mode = DeliveryMode::fixed);
    // A loop of ICR reads until one sees the delivery-status bit clear, fast-forwarded: each
    // read returns the state at its end, so the loop makes max(1, ceil(busy_left / icr_read))
    // reads (one read when idle; the busy time itself when reads are free). While a round-trip
    // RAR awaits its target's acceptance the reads go on until the reply is known, then end at
    // the first read that returns after it.
    sim::Task<> read_icr_until_idle(Cpu& sender);

    [[nodiscard]] bool rar_round_trip() const override { return params().rar_round_trip; }

private:
    struct Icr {
        uint32_t icr2 = 0;            // the destination ICR2 holds
        sim::Picos idle_at;           // when the delivery-status bit clears (once known)
        bool awaiting_reply = false;  // round-trip RAR sent, not yet accepted by its target
        sim::Signal reply;            // notified at that acceptance
    };

    void on_attach() override;
    // The reply to a round-trip RAR leaves the target when its local APIC accepted it.
    void on_accepted(CpuId sender, CpuId target, DeliveryMode mode) override;
    [[nodiscard]] const XapicParams& params() const { return *params_; }
    // Busy from now until icr_busy + the router wait + the load term from now.
    void set_icr_busy(const Cpu& sender, sim::Picos router_wait, sim::Picos load);
    // The reads from `start`, the busy end being known.
    sim::Task<> read_icr_from(Cpu& sender, sim::Picos start);
    sim::Task<> read_icr_until_reply(Cpu& sender);

    const XapicParams* params_ = nullptr;
    std::vector<CpuId> cpu_of_id_;           // APIC id -> CPU
    std::vector<std::unique_ptr<Icr>> icr_;  // per CPU
};

// xAPIC ids are 8 bits (0xFF is broadcast): "" when every CPU of the topology fits.
std::string xapic_topology_problem(const Topology& topo);

}  // namespace ipisim::hw
