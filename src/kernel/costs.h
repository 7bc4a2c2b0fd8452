// Instruction costs of kernel code paths, in core cycles, for the software between the
// modeled hardware operations (cache-line accesses, IPIs, idle exits are costed by hw/).
// Every value is [A]: an estimate of the path length (instructions at IPC ~1-2), not fitted
// to any published result; the CPU clock of the machine converts them to time. docs/mechanisms.md
// §7.1 gives the ranges: handler dispatch 50-100 ns plus 10-20 ns per node.
#pragma once

#include "sim/time.h"

namespace ipisim::kernel::costs {

// smp_call_function_single(): get_cpu, argument checks, CSD setup, generic_exec_single.
inline constexpr sim::Cycles smp_call_function_single{60};
// smp_call_function_many_cond(): masks, online checks, per-target loop overhead.
inline constexpr sim::Cycles smp_call_function_many_setup{80};
inline constexpr sim::Cycles smp_call_function_many_per_cpu{20};
// __flush_smp_call_function_queue(): llist reverse, pass bookkeeping, per node dispatch.
inline constexpr sim::Cycles flush_queue_setup{60};
inline constexpr sim::Cycles flush_queue_per_node{25};
// An empty callback (ipi_latency_func): call + return.
inline constexpr sim::Cycles empty_function{5};
// Idle loop bookkeeping around cpuidle entry/exit (do_idle, tick/RCU hooks).
inline constexpr sim::Cycles do_idle_exit{150};

// --- scheduler (kernel/sched), [A] path lengths; the context switch itself is the machine's
// cpu.context_switch (measured), split at perf's counter switch (see sched/core.cpp).
// try_to_wake_up() up to the queueing decision: state checks, select_task_rq (bound: trivial).
inline constexpr sim::Cycles try_to_wake_up{120};
// ttwu_do_activate(): enqueue_task_fair, update_curr, check_preempt_curr.
inline constexpr sim::Cycles ttwu_do_activate{200};
// hrtimer_interrupt + tick_sched_timer / the timer wheel softirq for one expiry.
inline constexpr sim::Cycles local_timer_interrupt{400};
// msleep() -> schedule_timeout(): timer setup before schedule().
inline constexpr sim::Cycles schedule_timeout{150};
// wait_for_completion() / complete() bookkeeping around the wait-queue lock.
inline constexpr sim::Cycles completion_op{40};

// --- workqueue (kernel/workqueue.c), [A]; docs/mechanisms.md 7.4 t_queue_work_on 0.2-0.5 us with the
// pool lock transfer. __queue_work: RCU, pwq lookup, insert_work, kick_pool.
inline constexpr sim::Cycles queue_work_on{200};
// worker_thread / process_one_work around one item: leave idle, list ops, PENDING clear,
// current_work bookkeeping, enter idle.
inline constexpr sim::Cycles process_one_work{300};
// smp_call_on_cpu(): INIT_WORK_ONSTACK, init_completion, destroy_work_on_stack.
inline constexpr sim::Cycles smp_call_on_cpu{80};

// --- resctrl, [A]
// A read() of a mon_data file up to mon_event_read(): vfs_read, kernfs_fop_read_iter,
// seq_read_iter, rdtgroup_kn_lock_live (kernfs active ref, cpus_read_lock, rdtgroup_mutex) and
// back: seq_printf of the value, copy_to_user, unlocks. ~0.5 us at 2 GHz.
inline constexpr sim::Cycles rdtgroup_mondata_show{1000};
// mon_event_read(): fill rmid_read, cpumask_any_housekeeping, mon ctx alloc/free.
inline constexpr sim::Cycles mon_event_read{100};
// mon_event_count() / __mon_event_count() besides the two MSR accesses: group checks, the MBM
// wraparound arithmetic (mbm_overflow_count), chunk scaling.
inline constexpr sim::Cycles mon_event_count{120};

// --- Intel RAR (kernel/rar), [A] path lengths
// smp_call_rar_many() besides its modeled memory accesses and sends: smp_processor_id, the
// pages arithmetic, cpumask_and with cpu_online_mask and the weight check, the slot number,
// and composing the 64-byte rar_payload in registers before its store (comparable to
// smp_call_function_many_setup).
inline constexpr sim::Cycles smp_call_rar_many{80};

}  // namespace ipisim::kernel::costs
