// tlb_flush "rar-grouped": rar-optimized with payload slots and target order grouped by
// locality instead of CPU number, the TODO of seed 000's arch/x86/mm/rar.c ("group CPUs
// together based on locality in the system instead of CPU number, to further reduce the cost
// of contention").
//   Slots: take the finest of L3 domain, die, package and machine that has no more domains
//   than slots; each domain gets slots / domains consecutive slots, and the j-th CPU of a
//   domain (by CPU number) uses its domain's slot j mod that many. CPUs sharing a slot lock
//   and payload line are then in one domain. The price: tasks placed in CPU order fill a
//   domain first, so they share slots from the (slots / domains + 1)-th CPU of a domain on,
//   where cpu % slots shares none below `slots` CPUs (what that does: docs/protocols.md).
//   Order: the sender's own L3 first, then the rest of its die, its package, the other
//   packages; by L3, then CPU number, within each.
// With one L3 and no more CPUs than slots, both are RFC v4's (slot = cpu, CPU number order).
#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel/tlbflush/rar_flush.h"

namespace ipisim::kernel {

namespace {

class LocalityPlacement final : public RarPlacement {
public:
    void attach(const hw::Topology& topo, uint32_t nr_slots) override {
        RarPlacement::attach(topo, nr_slots);
        topo_ = &topo;
        // (domain, domains): the finest of L3, die, package with no more domains than slots.
        auto domain = [&topo, nr_slots](const hw::CpuInfo& c) -> std::pair<uint32_t, uint32_t> {
            if (topo.nr_l3() <= nr_slots) return {c.l3, topo.nr_l3()};
            if (topo.nr_dies() <= nr_slots) return {c.die, topo.nr_dies()};
            if (topo.nr_packages() <= nr_slots) return {c.package, topo.nr_packages()};
            return {0, 1};
        };
        std::vector<uint32_t> seen(topo.nr_cpus(), 0);  // CPUs of each domain so far
        for (const hw::CpuInfo& c : topo.cpus()) {
            const auto [d, domains] = domain(c);
            const uint32_t per_domain = nr_slots / domains;
            slot_.push_back(d * per_domain + seen[d]++ % per_domain);
        }
    }
    [[nodiscard]] uint32_t payload_slot(hw::CpuId cpu) const override { return slot_.at(cpu); }
    void order_targets(hw::CpuId self, const hw::CpuMask& dest, std::vector<hw::CpuId>& order) const override {
        dest.for_each([&order](hw::CpuId c) { order.push_back(c); });
        auto key = [this, self](hw::CpuId t) {
            const hw::DistanceClass d = topo_->distance(self, t);  // rings: L3, die, package, machine
            return std::tuple(d <= hw::DistanceClass::same_l3 ? hw::DistanceClass::same_l3 : d, topo_->l3_of(t), t);
        };
        std::sort(order.begin(), order.end(), [&key](hw::CpuId a, hw::CpuId b) { return key(a) < key(b); });
    }

private:
    const hw::Topology* topo_ = nullptr;
    std::vector<uint32_t> slot_;
};

const RarFlushRegistration reg("rar-grouped",
                               "Intel RAR, rar-optimized with payload slots and target order grouped by L3/die "
                               "(seed 000 TODO)",
                               {rar_pending_send, make_placement<LocalityPlacement>});

}  // namespace

}  // namespace ipisim::kernel
