// tlb_flush "numa-multicast": the design and its rules are in numa_multicast.h.
#include "kernel/tlbflush/numa_multicast.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <tuple>

#include "hw/cpu/spin.h"
#include "kernel/costs.h"
#include "kernel/mm/mm.h"
#include "sim/registry.h"

namespace ipisim::kernel {

void NumaMulticastFlush::attach(mm::Mm& mm) {
    TlbFlushProtocol::attach(mm);
    hw::Platform& p = mm.platform();
    hw::Memory& mem = p.memory();
    hw::profile_label("sysvec_numa_multicast", hw::LabelCategory::tlb_invalidation);  // tags the handler's label
    for (hw::CpuId c = 0; c < p.nr_cpus(); ++c) {
        const uint32_t node = p.topology().node_of(c);
        Mailbox box;
        box.head = &mem.new_aligned_var(fmt::format("numa_mc_mailbox[{}]", c), node);
        mailbox_.push_back(std::move(box));
        ack_.push_back(&mem.new_aligned_var(fmt::format("numa_mc_ack[{}]", c), node));
        p.cpu(c).set_irq_handler(NUMA_MULTICAST_VECTOR, "sysvec_numa_multicast",
                                 [this](hw::Cpu& cpu, const sim::Interrupt&) { return handle_mailbox(cpu); });
    }
}

hw::SimVar& NumaMulticastFlush::domain_ack(hw::CpuId initiator, uint32_t l3) {
    hw::SimVar*& v = dom_[{initiator, l3}];
    if (v == nullptr) {
        hw::Platform& p = mm().platform();
        const hw::CpuId first = p.topology().cpus_in_l3(l3).front();
        v = &p.memory().new_aligned_var(fmt::format("numa_mc_domain_ack[{}][{}]", initiator, l3),
                                        p.topology().node_of(first));
    }
    return *v;
}

sim::Task<> NumaMulticastFlush::push(hw::Cpu& self, hw::CpuId target, Request r) {
    // llist_add-like: an atomic add on the target's mailbox line; an IPI only if it was empty.
    Mailbox& box = mailbox_[target];
    const uint64_t before = co_await mm().mem().fetch_add(self.id(), *box.head, 1);
    box.queue.push_back(std::move(r));
    if (before == 0) {
        ++stats_.ipis;
        const bool irqs_were_on = !self.irqs_disabled();
        if (irqs_were_on) self.local_irq_disable();
        co_await mm().kernel().irqchip().send_IPI(self, target, NUMA_MULTICAST_VECTOR);
        if (irqs_were_on) co_await self.local_irq_enable();
    }
}

sim::Task<> NumaMulticastFlush::flush_and_ack(hw::Cpu& self, const mm::FlushTlbInfo& info, hw::SimVar& dom,
                                              hw::CpuId initiator) {
    co_await mm().flush_tlb_func(self, info);
    const uint64_t left = co_await mm().mem().fetch_add(self.id(), dom, ~0ULL);
    if (left == 1) {
        // The domain's last count: one aggregate acknowledgement to the initiator.
        ++stats_.aggregate_acks;
        co_await mm().mem().fetch_add(self.id(), *ack_[initiator], ~0ULL);
    }
}

sim::Task<> NumaMulticastFlush::represent(hw::Cpu& self, const Request& r) {
    static const uint32_t label = hw::profile_label("numa_mc_represent", hw::LabelCategory::tlb_invalidation);
    auto scope = self.function(label);
    hw::SimVar& dom = *r.domain_ack;
    co_await self.compute_cycles(costs::smp_call_function_many_setup);
    bool me = false;
    std::vector<hw::CpuId> targets;
    for (hw::CpuId c : r.cpus) {
        co_await self.compute_cycles(costs::smp_call_function_many_per_cpu);
        bool should = r.all;
        if (!should) should = co_await mm().should_flush_tlb(self, c, *r.info);
        if (!should) continue;
        if (c == self.id()) {
            me = true;
        } else {
            targets.push_back(c);
        }
    }
    co_await mm().mem().store(self.id(), dom, 1 + targets.size());
    for (hw::CpuId t : targets) {
        ++stats_.forwards;
        Request fwd;
        fwd.info = r.info;
        fwd.initiator = r.initiator;
        fwd.domain_ack = &dom;
        co_await push(self, t, std::move(fwd));
    }
    const bool irqs_were_on = !self.irqs_disabled();
    if (irqs_were_on) self.local_irq_disable();
    if (me) {
        co_await flush_and_ack(self, *r.info, dom, r.initiator);
    } else {
        const uint64_t left = co_await mm().mem().fetch_add(self.id(), dom, ~0ULL);
        if (left == 1) {
            ++stats_.aggregate_acks;
            co_await mm().mem().fetch_add(self.id(), *ack_[r.initiator], ~0ULL);
        }
    }
    if (irqs_were_on) co_await self.local_irq_enable();
}

sim::Task<> NumaMulticastFlush::handle_mailbox(hw::Cpu& self) {
    static const uint32_t label = hw::profile_label("numa_mc_flush_mailbox", hw::LabelCategory::tlb_invalidation);
    auto scope = self.function(label);
    Mailbox& box = mailbox_[self.id()];
    const uint64_t taken = co_await mm().mem().xchg(self.id(), *box.head, 0);
    const uint64_t n = std::min<uint64_t>(taken, box.queue.size());
    if (n == 0) co_return;
    std::vector<Request> batch(std::make_move_iterator(box.queue.begin()),
                               std::make_move_iterator(box.queue.begin() + static_cast<std::ptrdiff_t>(n)));
    box.queue.erase(box.queue.begin(), box.queue.begin() + static_cast<std::ptrdiff_t>(n));
    co_await self.compute_cycles(costs::flush_queue_setup + costs::flush_queue_per_node * n);
    for (const Request& r : batch) {
        co_await mm().mem().load(self.id(), *r.info->line);  // the request's payload
        if (r.domain) {
            co_await represent(self, r);
        } else {
            co_await flush_and_ack(self, *r.info, *r.domain_ack, r.initiator);
        }
    }
}

sim::Task<> NumaMulticastFlush::flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask,
                                                const mm::FlushTlbInfo& info) {
    static const uint32_t label = hw::profile_label("numa_mc_flush_tlb_multi", hw::LabelCategory::tlb_invalidation);
    auto scope = self.function(label, hw::Activity::kernel);
    ++stats_.flushes;
    const hw::Topology& topo = mm().platform().topology();
    const hw::CpuId me = self.id();
    const bool all = co_await ipi_flush_must_reach_all(self, info);
    // The mask's CPUs by L3 domain (the initiator's domain includes it even if not in the mask).
    std::map<uint32_t, std::vector<hw::CpuId>> domains;
    cpumask.for_each([&](hw::CpuId c) { domains[topo.l3_of(c)].push_back(c); });
    const uint32_t own = topo.l3_of(me);
    std::vector<uint32_t> remote;
    for (const auto& [l3, cpus] : domains) {
        if (l3 != own) remote.push_back(l3);
    }
    // NUMA-aware order: the farthest domains first, then by L3 number.
    auto key = [&](uint32_t l3) { return std::tuple(-static_cast<int>(topo.distance(me, domains[l3].front())), l3); };
    std::sort(remote.begin(), remote.end(), [&key](uint32_t a, uint32_t b) { return key(a) < key(b); });
    const bool own_domain = domains.count(own) != 0;
    co_await self.compute_cycles(costs::smp_call_function_many_setup);
    co_await mm().mem().store(me, *ack_[me], remote.size() + (own_domain ? 1 : 0));
    for (uint32_t l3 : remote) {
        co_await self.compute_cycles(costs::smp_call_function_many_per_cpu);
        ++stats_.domain_requests;
        Request r;
        r.info = &info;
        r.initiator = me;
        r.all = all;
        r.domain = true;
        r.cpus = domains[l3];
        r.domain_ack = &domain_ack(me, l3);
        // Spread by initiator: the domain's CPU at position `initiator mod size`, so concurrent
        // initiators hand their domain work to different CPUs instead of one CPU forwarding
        // every initiator's requests in turn.
        const hw::CpuId representative = r.cpus[me % r.cpus.size()];
        co_await push(self, representative, std::move(r));
    }
    if (own_domain) {
        Request r;
        r.info = &info;
        r.initiator = me;
        r.all = all;
        r.domain = true;
        r.cpus = domains[own];
        r.domain_ack = &domain_ack(me, own);
        co_await represent(self, r);
    }
    co_await hw::spin_until(self, mm().mem(), *ack_[me], [](uint64_t left) { return left == 0; });
}

namespace {
const sim::Registration<TlbFlushProtocol, NumaMulticastFlush> reg(
    "tlb_flush", "numa-multicast",
    "Barrelfish-style multicast shootdown (Multikernel, SOSP'09): one IPI per L3 domain to a "
    "representative that forwards locally and sends one aggregate ack");
}  // namespace

}  // namespace ipisim::kernel
