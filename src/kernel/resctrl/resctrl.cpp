#include "kernel/resctrl/resctrl.h"

#include <fmt/format.h>

#include <stdexcept>

#include "kernel/costs.h"

namespace ipisim::kernel {

using hw::Cpu;
using hw::CpuId;

Resctrl::Resctrl(Sched& sched, Workqueue& wq)
    : sched_(sched), wq_(wq), p_(sched.kernel().platform()), rr_val_(p_.nr_cpus(), nullptr) {
    const hw::Topology& topo = p_.topology();
    for (uint32_t l3 = 0; l3 < topo.nr_l3(); ++l3) {
        hw::CpuMask mask(p_.nr_cpus());
        for (CpuId c : topo.cpus_in_l3(l3)) mask.set(c);
        domains_.push_back(mask);
    }
}

uint32_t Resctrl::domain_of(CpuId cpu) const {
    return p_.topology().l3_of(cpu);
}

sim::Picos Resctrl::qm_ctr_read_cost(const hw::MachineSpec& spec) {
    return spec.cpu.rdmsr_qm_ctr;
}

hw::SimVar& Resctrl::rmid_read_val(CpuId caller) {
    hw::SimVar*& v = rr_val_.at(caller);
    if (v == nullptr) {
        v = &p_.memory().new_aligned_var(fmt::format("rmid_read@cpu{}", caller), p_.topology().node_of(caller));
    }
    return *v;
}

sim::Task<uint64_t> Resctrl::mon_event_count(Cpu& cpu, uint32_t domain, uint32_t rmid, QosEvent evt) {
    static const uint32_t l = hw::profile_label("__rmid_read_phys");
    auto scope = cpu.function(l);
    // The hardware counters are only accessible from the domain.
    if (!domains_.at(domain).test(cpu.id())) {
        throw std::logic_error(fmt::format("cpu{} reads a counter of L3 domain {}", cpu.id(), domain));
    }
    co_await cpu.compute_cycles(costs::mon_event_count);
    co_await cpu.stall(cpu.costs().wrmsr);             // WRMSR IA32_QM_EVTSEL = (rmid << 32) | evt
    co_await cpu.stall(qm_ctr_read_cost(cpu.spec()));  // RDMSR IA32_QM_CTR
    // A deterministic stand-in for the counter value.
    co_return (static_cast<uint64_t>(rmid) << 8) | static_cast<uint64_t>(evt);
}

sim::Task<uint64_t> Resctrl::mon_event_read(Cpu& self, uint32_t domain, uint32_t rmid, QosEvent evt,
                                            MonDispatch dispatch) {
    static const uint32_t l = hw::profile_label("mon_event_read");
    auto scope = self.function(l, hw::Activity::kernel);
    ++stats_.reads;
    co_await self.compute_cycles(costs::mon_event_read);
    hw::SimVar& rr_val = rmid_read_val(self.id());
    const CpuId caller = self.id();
    // rr->val is written by whichever CPU reads the counter.
    auto count = [this, domain, rmid, evt, caller, &rr_val](Cpu& c) -> sim::Task<> {
        if (c.id() == caller) ++stats_.reads_on_caller_cpu;
        const uint64_t v = co_await mon_event_count(c, domain, rmid, evt);
        co_await p_.memory().store(c.id(), rr_val, v);
    };
    const hw::CpuMask& mask = domains_.at(domain);
    if (dispatch == MonDispatch::call_any) {
        co_await sched_.kernel().smp().smp_call_function_any(self, mask, count, true);
    } else {
        // cpumask_any_housekeeping(mask, RESCTRL_PICK_ANY_CPU): no nohz_full CPUs -> the first.
        const CpuId cpu = mask.first();
        auto smp_mon_event_count = [count](Cpu& c) -> sim::Task<int> {
            co_await count(c);
            co_return 0;
        };
        co_await wq_.smp_call_on_cpu(self, cpu, smp_mon_event_count, false);
    }
    const uint64_t value = co_await p_.memory().load(self.id(), rr_val);
    co_return value;
}

sim::Task<uint64_t> Resctrl::mon_event_read(Cpu& self, uint32_t domain, uint32_t rmid, QosEvent evt) {
    return mon_event_read(self, domain, rmid, evt, sched_.kernel().config().resctrl_dispatch);
}

}  // namespace ipisim::kernel
