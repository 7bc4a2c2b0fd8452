// Instruction costs of kernel code paths, in core cycles, for the software between the
// modeled hardware operations (cache-line accesses, IPIs, idle exits are costed by hw/).
// Every value is [A]: an estimate of the path length (instructions at IPC ~1-2), not fitted
// to any published result; the CPU clock of the machine converts them to time. MECHANISMS.md
// §7.1 gives the ranges: handler dispatch 50-100 ns plus 10-20 ns per node.
#pragma once

#include <cstdint>

namespace ipisim::kernel::costs {

// smp_call_function_single(): get_cpu, argument checks, CSD setup, generic_exec_single.
inline constexpr uint64_t smp_call_function_single = 60;
// smp_call_function_many_cond(): masks, online checks, per-target loop overhead.
inline constexpr uint64_t smp_call_function_many_setup = 80;
inline constexpr uint64_t smp_call_function_many_per_cpu = 20;
// __flush_smp_call_function_queue(): llist reverse, pass bookkeeping, per node dispatch.
inline constexpr uint64_t flush_queue_setup = 60;
inline constexpr uint64_t flush_queue_per_node = 25;
// An empty callback (ipi_latency_func): call + return.
inline constexpr uint64_t empty_function = 5;
// Idle loop bookkeeping around cpuidle entry/exit (do_idle, tick/RCU hooks).
inline constexpr uint64_t do_idle_exit = 150;

}  // namespace ipisim::kernel::costs
