// xAPIC, MMIO interface, physical destination mode (arch/x86/kernel/apic/ipi.c;
// docs/mechanisms.md 3.4, 4.3).
//
// Cost model, per target CPU (__default_send_IPI_dest_field):
//   1. apic_mem_wait_icr_idle(): poll the sender's own ICR until its delivery-status bit
//      (APIC_ICR_BUSY) clears. Each poll is one MMIO read (IntcSpec.icr_read) and sees the
//      state when it returns, so the wait is max(1, ceil((busy_end - now) / icr_read)) reads:
//      the busy end rounded up to whole polls, at least one read. Charged as spin.
//   2. ICR2 write (destination), 3. ICR write (vector, mode): IntcSpec.icr_write each. The
//      message enters the fabric when the ICR write retires.
//   After the ICR write the sender's ICR stays busy for
//      icr_busy + icr_busy_per_inflight * (messages in the fabric at that moment):
//   the local APIC holds the message until the interconnect takes it, and a loaded fabric
//   takes longer; so simultaneous senders slow each other down although each polls only its
//   own register. The busy state outlives the call: a next send waits for it too.
#include <algorithm>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/intc/interrupt_controller.h"
#include "sim/registry.h"

namespace ipisim::hw {

namespace {

using sim::Picos;

class XapicMmio final : public InterruptController {
protected:
    void on_attach() override { icr_idle_at_.assign(topology().nr_cpus(), Picos::zero()); }

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

private:
    // __default_send_IPI_dest_field(apicid, vector, APIC_DEST_PHYSICAL)
    sim::Task<> send_dest_field(Cpu& sender, CpuId target, uint32_t vector, DeliveryMode mode) {
        co_await apic_mem_wait_icr_idle(sender);
        co_await sender.stall(costs().icr_write);  // APIC_ICR2: destination
        ++stats_.register_writes;
        co_await sender.stall(costs().icr_write);  // APIC_ICR: vector | mode; triggers the send
        icr_idle_at_[sender.id()] =
            sender.now() + costs().icr_busy + costs().icr_busy_per_inflight * fabric().in_flight();
        post(sender, target, vector, mode);
    }

    sim::Task<> apic_mem_wait_icr_idle(Cpu& sender) {
        static const uint32_t label = profile_label("apic_mem_wait_icr_idle");
        auto scope = sender.function(label, Activity::spin);
        const Picos busy = icr_idle_at_[sender.id()] - sender.now();
        const Picos read = costs().icr_read;
        uint64_t polls = 1;
        Picos wait = std::max(busy, read);
        if (read > Picos::zero()) {
            polls = std::max<uint64_t>(1, (busy.count() + read.count() - 1) / read.count());
            wait = read * polls;
        }
        stats_.icr_polls += polls;
        co_await sender.stall(wait);
    }

    std::vector<Picos> icr_idle_at_;  // per CPU: when its ICR delivery-status bit clears
};

const sim::Registration<InterruptController, XapicMmio> reg(
    "intc", "xapic_mmio",
    "xAPIC MMIO physical mode: per target wait for the own ICR idle (busy grows with IPIs in flight), "
    "write ICR2 and ICR");

}  // namespace

}  // namespace ipisim::hw
