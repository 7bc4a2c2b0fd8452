// tlb_flush "numa-multicast": Barrelfish-style multicast shootdown (Baumann et al., The
// Multikernel, SOSP'09, its TLB shootdown (unmap) case study: the "NUMA-aware multicast").
//
// The aggregation domain is the L3 domain: in the paper a message goes to one core per
// shared-cache group (on its AMD machines a package = an L3 = a NUMA node), which forwards it to
// the other cores sharing that cache and aggregates their replies, because messages inside a
// shared cache are cheap and only one line per group crosses the interconnect; the
// NUMA-aware variant sends to the farthest groups first. On today's parts a NUMA node holds
// several L3s (Milan: eight CCXs per socket), so the L3, not the node, is the group the paper's
// reasoning picks.
//
// flush_tlb_multi(cpumask):
//   1. Groups the CPUs of the mask (as read by flush_tlb_mm_range) by L3. The representative of
//      a remote domain is its CPU at position (initiator mod the domain's CPUs in the mask), so
//      concurrent initiators use different representatives (with the lowest CPU for all, that
//      one CPU forwarded every initiator's requests in turn: on a 2-socket Skylake at 112
//      threads numa-multicast fell to 243k loops/s, a fifth of ipi's, with 61 interrupts per
//      loop); in the initiator's own domain the initiator. The
//      initiator reads no remote CPU's state to choose: a representative that is idle is woken
//      by the message (its idle exit is on the path), one that is lazy forwards and then skips
//      its own flush through should_flush_tlb() (freed tables: it leaves the mm, as in Linux).
//   2. Stores the number of domains into its own ack line, then sends one request per remote
//      domain, farthest first (distance class, then L3 number): a push onto the
//      representative's mailbox (an atomic add on the mailbox's line, in its node) and, when
//      the mailbox was empty, an IPI (NUMA_MULTICAST_VECTOR) through the irqchip.
//   3. Represents its own domain (below), with IRQs off for its own flush_tlb_func.
//   4. Spins with IRQs on until its ack line reaches 0, serving requests sent to it meanwhile.
// A representative (in the IPI handler: drains its mailbox) selects its domain's targets with
// should_flush_tlb() (all of them when ipi_flush_must_reach_all()), stores 1 + their number into
// the domain's ack counter (a line homed in the domain's node, one per initiator and domain),
// forwards a local request to each (mailbox push + IPI), flushes itself if selected, and
// drops its own count. Each target runs flush_tlb_func and drops one count. Whoever drops the
// domain's count to 0 sends the aggregate acknowledgement: an atomic decrement of the
// initiator's ack line, the one line per domain that crosses the machine.
// Nobody waits in IRQ context (Linux forbids cross-calls with IRQs off: two representatives
// waiting for each other would deadlock); this is why the domain's replies are combined on a
// counter rather than collected by the representative's handler.
//
// Costs besides the modelled accesses and IPIs are those of the cross-call layer's
// equivalent steps (kernel/costs.h [A]): per-message setup as smp_call_function_many_setup,
// per target as smp_call_function_many_per_cpu, the handler's drain as
// __flush_smp_call_function_queue's. No polling-idle shortcut (the mailbox always IPIs).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "hw/coherence/sim_var.h"
#include "kernel/tlbflush/tlb_flush_protocol.h"

namespace ipisim::kernel {

// A vector of its own (0xf1 is unused by the kernel paths modelled here).
inline constexpr uint32_t NUMA_MULTICAST_VECTOR = 0xf1;

struct NumaMulticastStats {
    uint64_t flushes = 0;
    uint64_t domain_requests = 0;  // initiator -> representative of a remote domain
    uint64_t forwards = 0;         // representative -> target of its domain
    uint64_t ipis = 0;             // mailbox pushes that found it empty
    uint64_t aggregate_acks = 0;   // domain -> initiator
};

class NumaMulticastFlush final : public TlbFlushProtocol {
public:
    void attach(mm::Mm& mm) override;
    sim::Task<> flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) override;
    [[nodiscard]] const NumaMulticastStats& stats() const { return stats_; }

private:
    struct Request {
        const mm::FlushTlbInfo* info = nullptr;
        hw::CpuId initiator = 0;
        bool all = false;             // ipi_flush_must_reach_all()
        bool domain = false;          // to a representative (else: to a target)
        std::vector<hw::CpuId> cpus;  // domain request: the domain's CPUs of the mask
        hw::SimVar* domain_ack = nullptr;
    };
    struct Mailbox {
        hw::SimVar* head = nullptr;  // number of queued requests (its line, in the CPU's node)
        std::deque<Request> queue;
    };

    // The representative's part: select, forward, flush itself, drop its count.
    sim::Task<> represent(hw::Cpu& self, const Request& r);
    sim::Task<> flush_and_ack(hw::Cpu& self, const mm::FlushTlbInfo& info, hw::SimVar& domain_ack, hw::CpuId initiator);
    sim::Task<> push(hw::Cpu& self, hw::CpuId target, Request r);
    sim::Task<> handle_mailbox(hw::Cpu& self);
    hw::SimVar& domain_ack(hw::CpuId initiator, uint32_t l3);

    std::vector<Mailbox> mailbox_;
    std::vector<hw::SimVar*> ack_;                               // per initiator: domains left
    std::map<std::pair<hw::CpuId, uint32_t>, hw::SimVar*> dom_;  // (initiator, L3): counts left
    NumaMulticastStats stats_;
};

}  // namespace ipisim::kernel
