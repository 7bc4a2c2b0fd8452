// The checking workload, check_stress (docs/checker.md, "The workload"): CPUs share the pages of
// one address space and race, so that a flush that misses a CPU, or returns before it applied,
// is observable as a use of a stale translation. Every CPU runs `ops_per_cpu` operations drawn
// from its own seeded stream (sim::Rng, "check_stress.cpu.N"):
//   - user accesses to the shared regions (even pages written, odd pages read: the model has no
//     copy-on-write of the zero page), several per operation so translations are reused;
//   - madvise(MADV_DONTNEED) of one shared page (zap, one-page flush, release);
//   - munmap + mmap of a whole shared region (freed page tables, a full flush, the same
//     addresses reused), after the region's other users left it (a program does not touch what
//     it unmaps);
//   - lazy TLB: enter_lazy_tlb, kernel work, then back to the mm (the switch catches up);
//   - a context switch to the CPU's private second mm (another PCID), one access there, back;
//     with a global-ASID protocol, CPU 0 instead starts a short-lived process of several
//     threads (the other CPUs join it in this share of their operations), flushes it, and tears
//     it down, freeing its global ASID; the ASID space is small enough to wrap;
//   - migration: the running thread of the shared process moves to another CPU's runqueue
//     (one thread per CPU at the start; each CPU round-robins its threads at every operation,
//     and one without any pulls a queued thread from another CPU, or runs its private process
//     until it can), so the shared mm leaves CPUs, is left lazily in their mm_cpumask, and is
//     switched in again on others;
//   - plain user computation.
// It runs on the kernel's mm API with the named flush protocol, with the monitors installed, and
// with the perturbation of the seed when one is given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check/perturbation.h"
#include "check/violation.h"
#include "hw/machine.h"
#include "hw/observer.h"

namespace ipisim::check {

struct StressSpec {
    std::string protocol;
    hw::MachineSpec machine;
    uint64_t seed = 1;
    bool perturb = true;
    PerturbationSpec perturbation;
    uint32_t ops_per_cpu = 200;
    uint32_t regions = 2;
    uint32_t pages_per_region = 8;
    // Protocols with global ASIDs: CPU 0 now and then runs a short-lived process that other
    // CPUs join and that exits (its global ASID freed), and the global ASID space is cut to
    // `global_asids` (0: the kernel's) so that it wraps within the run.
    bool process_churn = true;
    bool migration = true;  // threads of the shared process migrate between CPUs
    uint32_t global_asids = 3;
    sim::Picos wait_bound;  // zero: default_wait_bound(machine)
    bool event_log = true;
    bool monitors = true;  // false: the same run without hooks (to show they change nothing)
    // Observes the run from before the machine is built, as the tracer too (a report::Trace
    // for the violation trace); nullptr: none. Observers change nothing simulated.
    hw::Observer* observer = nullptr;
};

struct StressResult {
    std::vector<Violation> violations;  // the first ones (Monitors::kKept)
    uint64_t total_violations = 0;
    std::string window;  // event log before the first violation
    uint32_t unfinished = 0;
    bool drained = false;
    uint64_t fingerprint = 0;
    uint64_t events = 0;
    sim::Picos end;
    uint64_t flushes = 0;
    uint64_t accesses = 0;
    uint64_t migrations = 0;        // threads moved to another CPU's runqueue
    uint64_t mm_cpumask_joins = 0;  // switches into the shared mm on a CPU not in its mm_cpumask
    // Switches into the shared mm from another mm or lazy TLB whose PCID slot was behind its
    // tlb_gen (flushes skipped the CPU meanwhile): switch_mm_irqs_off's catch-up flush.
    uint64_t catch_ups = 0;
};

// Runs the workload once. std::invalid_argument if the protocol is unknown or refuses the machine.
StressResult run_check_stress(const StressSpec& spec);

}  // namespace ipisim::check
