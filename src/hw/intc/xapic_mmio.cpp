// xAPIC, MMIO interface, physical destination mode (arch/x86/kernel/apic/ipi.c;
// docs/mechanisms.md 3.4, 3.5, 4.3).
//
// Cost model, per target CPU (__default_send_IPI_dest_field):
//   1. apic_mem_wait_icr_idle(): poll the sender's own ICR until its delivery-status bit
//      (APIC_ICR_BUSY) clears. Each poll is one MMIO read (IntcSpec.icr_read) and sees the
//      state when it returns, so the wait is max(1, ceil((busy_end - start) / icr_read)) reads:
//      the busy end rounded up to whole polls, at least one read. Charged as spin.
//   2. ICR2 write (destination), 3. ICR write (vector, mode): IntcSpec.icr_write each. The
//      message enters the fabric when the ICR write retires.
//   After the ICR write the sender's ICR stays busy (delivery status "send pending"):
//   * fixed mode (and RAR without the round trip): for
//        icr_busy + W + icr_busy_per_inflight * (messages in the fabric at that moment),
//     W being the message's wait for the package's interrupt router (DeliveryFabric): the
//     local APIC has not completed sending until the router has taken the message and its
//     completion is back (icr_busy: that round trip uncontended, router occupancy included).
//     Every sender of the package queues at the one router, so simultaneous senders slow each
//     other down although each polls only its own register. icr_busy_per_inflight is an older
//     load term kept for the toy machines (0 where the router is modeled).
//   * RAR mode with IntcSpec.rar_round_trip: until the target's reply is back, rar_reply
//     after the target's local APIC accepted the message, which it does only while the
//     target's RAR microcode is not processing (DeliveryFabric's door). The busy end is
//     unknown until then: the poll loop runs until the acceptance, then ends at the first
//     poll that returns after the reply.
//   The busy state outlives the call: a next send waits for it too.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/intc/interrupt_controller.h"
#include "sim/registry.h"
#include "sim/signal.h"

namespace ipisim::hw {

namespace {

using sim::Picos;

class XapicMmio final : public InterruptController {
protected:
    void on_attach() override {
        const uint32_t n = topology().nr_cpus();
        icr_.clear();
        for (uint32_t c = 0; c < n; ++c) icr_.push_back(std::make_unique<Icr>());
    }

    // default_send_IPI_mask_sequence_phys(mask, vector)
    sim::Task<> do_send_ipi_mask(Cpu& sender, const CpuMask& targets, uint32_t vector, DeliveryMode mode) override {
        static const uint32_t label = profile_label("default_send_IPI_mask_sequence_phys");
        auto scope = sender.function(label);
        for (const CpuId target : targets.to_vector()) co_await send_dest_field(sender, target, vector, mode);
    }

    // default_send_IPI_single_phys(cpu, vector)
    sim::Task<> do_send_ipi(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) override {
        static const uint32_t label = profile_label("default_send_IPI_single_phys");
        auto scope = sender.function(label);
        co_await send_dest_field(sender, target, vector, mode);
    }

    // The target's reply to a round-trip RAR leaves when its local APIC accepted the message.
    void on_accepted(CpuId sender, CpuId /*target*/, DeliveryMode mode) override {
        if (mode != DeliveryMode::rar || !costs().rar_round_trip) return;
        Icr& icr = *icr_.at(sender);
        if (!icr.awaiting_reply) throw std::logic_error("xAPIC: a RAR reply nobody is waiting for");
        icr.awaiting_reply = false;
        icr.idle_at = engine().now() + costs().rar_reply;
        icr.reply.notify_all();
    }

private:
    struct Icr {
        Picos idle_at;                // when the delivery-status bit clears (once known)
        bool awaiting_reply = false;  // round-trip RAR sent, not yet accepted by its target
        sim::Signal reply;            // notified at that acceptance
    };

    // __default_send_IPI_dest_field(apicid, vector, APIC_DEST_PHYSICAL)
    sim::Task<> send_dest_field(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) {
        co_await apic_mem_wait_icr_idle(sender);
        co_await sender.stall(costs().icr_write);  // APIC_ICR2: destination
        ++stats_.register_writes;
        co_await sender.stall(costs().icr_write);  // APIC_ICR: vector | mode; triggers the send
        Icr& icr = *icr_[sender.id()];
        if (mode == DeliveryMode::rar && costs().rar_round_trip) {
            icr.awaiting_reply = true;
            post(sender, target, vector, mode);
            co_return;
        }
        const Picos load = costs().icr_busy_per_inflight * fabric().in_flight();
        const Picos router_wait = post(sender, target, vector, mode);
        icr.idle_at = sender.now() + costs().icr_busy + router_wait + load;
    }

    sim::Task<> apic_mem_wait_icr_idle(Cpu& sender) {
        static const uint32_t label = profile_label("apic_mem_wait_icr_idle");
        auto scope = sender.function(label, Activity::spin);
        Icr& icr = *icr_[sender.id()];
        const Picos start = sender.now();
        while (icr.awaiting_reply) co_await sender.wait_on(icr.reply);  // IRQs are off: one wake-up
        const Picos busy = icr.idle_at - start;
        const Picos read = costs().icr_read;
        uint64_t polls = 1;
        Picos end = start + std::max(busy, read);
        if (read > Picos::zero()) {
            polls = std::max<uint64_t>(1, (busy.count() + read.count() - 1) / read.count());
            end = start + read * polls;
        }
        stats_.icr_polls += polls;
        co_await sender.stall(end - sender.now());
    }

    std::vector<std::unique_ptr<Icr>> icr_;  // per CPU
};

const sim::Registration<InterruptController, XapicMmio> reg(
    "intc", "xapic_mmio",
    "xAPIC MMIO physical mode: per target wait for the own ICR idle (until the package router took the message; "
    "RAR round trip: until the target's reply), write ICR2 and ICR");

}  // namespace

}  // namespace ipisim::hw
