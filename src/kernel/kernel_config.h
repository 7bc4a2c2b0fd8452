// The [kernel] section of an experiment: which Linux the simulated machine runs. `version` gates
// behaviours that changed between kernels; the other keys are the subsystem choices a kernel
// build or patch makes (the flush protocol, the madvise drain, HZ, the GIC barrier, ...). Keys
// whose default depends on the version say so (`ipisim list --params kernel`).
//
//   [kernel]
//   version = "6.13"                  # required
//   tlb_flush = "invlpgb"              # x86: the remote TLB flush protocol (default "ipi")
//   madvise_lru_add_drain = false      # default: true before 6.14, false from 6.14
//
// Read with read_kernel_config(), which also checks the values against the machine (a flush
// protocol the machine lacks is an error at its key).
#pragma once

#include <cstdint>
#include <string>

#include "config/schema.h"
#include "kernel/aperfmperf/aperfmperf.h"
#include "kernel/irqchip/irqchip.h"
#include "kernel/machine_info.h"
#include "kernel/mm/mm_lock.h"
#include "kernel/resctrl/mon_dispatch.h"
#include "kernel/smp/smp.h"
#include "kernel/version.h"

namespace ipisim::kernel {

// The members' defaults are the components' built-in ones (unit tests build kernels from them);
// an experiment's [kernel] gets the version-derived defaults of kernel_schema() instead.
struct KernelConfig {
    std::string version;  // "6.13" ("" only for unit tests' kernels); see parsed_version()
    std::string tlb_flush = "ipi";
    bool madvise_lru_add_drain = true;
    // x86 mm_cpumask kept lazily (kernel/mm/mm.h: switch_mm_irqs_off, should_trim_cpumask).
    bool lazy_mm_cpumask = true;
    // The lock a page fault and madvise(MADV_DONTNEED) take (kernel/mm/mm_lock.h).
    mm::MmLock fault_lock = mm::MmLock::vma_lock;
    mm::MmLock madvise_lock = mm::MmLock::mmap_lock;
    // PAGEVEC_SIZE: the capacity of the per-CPU LRU-add folio_batch (kernel/mm/lru.h); the
    // unit tests' default is mm::PAGEVEC_SIZE (15).
    uint32_t folio_batch_size = 15;
    CallAnyPolicy call_any_policy = CallAnyPolicy::same_node;
    uint32_t hz = 250;
    // Boot option skew_tick=1: the CPUs' ticks spread over half a jiffy (kernel/time/tick.h).
    bool skew_tick = false;
    // The GICv3 driver's barrier before its SGI writes (kernel/irqchip/irqchip.h).
    irqchip::GicIpiBarrier gic_barrier = irqchip::GicIpiBarrier::dsb_ishst;
    // x86 boot option no_ipi_broadcast=1: no destination-shorthand IPIs (kernel/irqchip/irqchip.h).
    bool no_ipi_broadcast = false;
    FreqPrepareVariant arch_freq_prepare_all = FreqPrepareVariant::serial_single;
    MonDispatch resctrl_dispatch = MonDispatch::call_on_cpu;
    // Levels of the benchmark's memory cgroup below the root (kernel/mm/memcg.h); 0 = the root
    // cgroup, no accounting (unit tests' kernels).
    uint32_t memcg_depth = 0;

    // The version as a comparable value; Version{} (0.0) when empty.
    [[nodiscard]] Version parsed_version() const;
};

// The declaration of [kernel] (registered in config::schema_catalog() as "kernel"). Conditions:
// "x86" (the machine is x86) and "gicv3" (its interrupt controller is a GICv3).
const config::Schema<KernelConfig>& kernel_schema();

// The conditions of kernel_schema() for a machine.
config::Conditions kernel_conditions(const MachineInfo& machine);

// Reads [kernel] strictly for `machine`; every mistake, including a flush protocol the machine
// cannot run, is a ConfigError at its key.
KernelConfig read_kernel_config(config::Table& table, const MachineInfo& machine);

}  // namespace ipisim::kernel
