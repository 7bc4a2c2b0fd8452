// Deliberately broken flush protocols the checker must catch (docs/checker.md, "Mutants"),
// registered only for the checker: register_mutants() adds them to the tlb_flush registry of
// this process (not to `ipisim list`'s catalog), and only `ipisim check` and the tests call it,
// so `ipisim run` never accepts them.
//   ipi-local-only  path (b) flushes the initiator only;
//   ipi-no-wait     the IPI flush without SCF_WAIT: returns before the targets flushed;
//   ipi-skip-lazy-freed  skips lazy CPUs although page tables were freed;
//   llist-no-empty-check  the IPI flush on a smp layer that sends no IPI when llist_add()
//                   found the queue empty (a lost wake-up);
//   rar-optimized-noloop  seed 000's rar_pending smp_call_rar_many() without its do/while
//                   loop-back: a target whose wait gave up is never claimed again;
//   invlpgb-no-tlbsync  the INVLPGB flush returns without TLBSYNC;
//   asid-reuse-no-flush  the INVLPGB flush whose global ASID space wraps without flushing
//                   every PCID (reset_global_asid_space() without invlpgb_flush_all_nonglobals);
//   switch-mm-no-smp-mb  the IPI flush on a switch_mm_irqs_off() missing the smp_mb() that
//                   83b0177a6c48 added (6.14-6.17's lazy mm_cpumask bug; caught only with
//                   store buffers: ipisim check --store-buffer N);
//   abba-deadlock   takes two spinlocks with IRQs off, in opposite orders on even and odd CPUs,
//                   before the IPI flush.
#pragma once

#include <string>
#include <vector>

namespace ipisim::check {

// Idempotent; call before any thread runs a check.
void register_mutants();
[[nodiscard]] const std::vector<std::string>& mutant_names();
[[nodiscard]] bool is_mutant(const std::string& name);

}  // namespace ipisim::check
