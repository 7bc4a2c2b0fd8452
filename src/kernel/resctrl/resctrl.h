// resctrl L3 monitoring reads (fs/resctrl/ctrlmondata.c mon_event_read, arch/x86 resctrl
// __rmid_read_phys), docs/mechanisms.md §6.2. One monitoring domain per L3 (SNC off); reading a
// counter must run on a CPU of its domain, so mon_event_read() dispatches it:
//   call_on_cpu: smp_call_on_cpu(cpumask_any_housekeeping(domain)) - since 6.8 (09909e098113),
//                the workqueue path, even when the caller is in the domain;
//   call_any:    smp_call_function_any(domain, mon_event_count, wait=1) - before 6.8 and with
//                Peter Newman's patch (seed 001): a local call when the caller is in the domain,
//                else a synchronous IPI.
// mon_event_count() on the chosen CPU: WRMSR IA32_QM_EVTSEL (event, RMID) + RDMSR IA32_QM_CTR,
// then the MBM wraparound arithmetic; the value goes back through the caller's on-stack
// rmid_read (a cache line homed on the caller's node).
#pragma once

#include <cstdint>
#include <vector>

#include "hw/cpumask.h"
#include "kernel/resctrl/mon_dispatch.h"
#include "kernel/sched/sched.h"
#include "kernel/workqueue/workqueue.h"

namespace ipisim::kernel {

// Event IDs of IA32_QM_EVTSEL (include/linux/resctrl_types.h).
enum class QosEvent : uint32_t {
    l3_occup = 0x01,   // QOS_L3_OCCUP_EVENT_ID
    mbm_total = 0x02,  // QOS_L3_MBM_TOTAL_EVENT_ID
    mbm_local = 0x03,  // QOS_L3_MBM_LOCAL_EVENT_ID
};

struct ResctrlStats {
    uint64_t reads = 0;
    uint64_t reads_on_caller_cpu = 0;  // mon_event_count ran on the reading CPU itself
};

class Resctrl {
public:
    Resctrl(Sched& sched, Workqueue& wq);

    [[nodiscard]] uint32_t nr_domains() const { return static_cast<uint32_t>(domains_.size()); }
    // d->hdr.cpu_mask
    [[nodiscard]] const hw::CpuMask& domain_mask(uint32_t domain) const { return domains_.at(domain); }
    // The L3 domain of a CPU.
    [[nodiscard]] uint32_t domain_of(hw::CpuId cpu) const;

    // mon_event_read() for one RMID and event of `domain`, by the thread running on `self`.
    sim::Task<uint64_t> mon_event_read(hw::Cpu& self, uint32_t domain, uint32_t rmid, QosEvent evt,
                                       MonDispatch dispatch);
    // The same with the kernel's dispatch ([kernel] resctrl_dispatch).
    sim::Task<uint64_t> mon_event_read(hw::Cpu& self, uint32_t domain, uint32_t rmid, QosEvent evt);
    // mon_event_count() -> __rmid_read_phys(), on a CPU of the domain.
    sim::Task<uint64_t> mon_event_count(hw::Cpu& cpu, uint32_t domain, uint32_t rmid, QosEvent evt);

    // RDMSR IA32_QM_CTR: the machine's cpu.rdmsr_qm_ctr (derived in the machine files from
    // docs/calibration.md's relative figure: ~4.5x a PQR_ASSOC write on Intel, ~2x on AMD).
    [[nodiscard]] static sim::Picos qm_ctr_read_cost(const hw::MachineSpec& spec);

    [[nodiscard]] const ResctrlStats& stats() const { return stats_; }

private:
    hw::SimVar& rmid_read_val(hw::CpuId caller);

    Sched& sched_;
    Workqueue& wq_;
    hw::Platform& p_;
    std::vector<hw::CpuMask> domains_;
    std::vector<hw::SimVar*> rr_val_;  // per caller CPU, lazily
    ResctrlStats stats_;
};

}  // namespace ipisim::kernel
