// The kernel's generic cross-CPU function-call layer (kernel/smp.c), on the modeled machine.
//
// Each function keeps the kernel's name and step order (docs/mechanisms.md §1): CSDs locked and
// unlocked on simulated cache lines, per-CPU call_single_queue with a lock-free push that
// sends an IPI only when it finds the queue empty, the polling-idle shortcut, the multi-call
// fan-out with the local run overlapping remote delivery, and the receive side running SYNC
// callbacks before releasing their CSDs and releasing ASYNC CSDs before running them.
// All functions are awaited by the process running on `self`.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hw/coherence/read_ahead.h"
#include "hw/cpumask.h"
#include "hw/platform.h"
#include "kernel/irqchip/irqchip.h"
#include "kernel/smp/csd.h"
#include "sim/stats.h"

namespace ipisim::kernel {

// arch/x86/include/asm/irq_vectors.h (used as message labels on arm64 too)
inline constexpr uint32_t CALL_FUNCTION_SINGLE_VECTOR = 0xfb;
inline constexpr uint32_t CALL_FUNCTION_VECTOR = 0xfc;
inline constexpr uint32_t RESCHEDULE_VECTOR = 0xfd;

// smp_call_function_many_cond() flags
inline constexpr unsigned SCF_WAIT = 1U << 0;
inline constexpr unsigned SCF_RUN_LOCAL = 1U << 1;

inline constexpr int kENXIO = 6;  // -ENXIO: offline or invalid target

// Which CPU smp_call_function_any() picks when the caller is not in the mask.
enum class CallAnyPolicy : uint8_t {
    same_node,     // <= v6.16: first online CPU of this node in the mask, else any
    nearest_node,  // v6.17: sched_numa_find_nth_cpu(mask, 0, this node)
};

struct SmpStats {
    uint64_t calls_single = 0;
    uint64_t calls_many = 0;
    uint64_t ipis_single = 0;      // CALL_FUNCTION_SINGLE IPIs sent
    uint64_t ipis_many = 0;        // CALL_FUNCTION IPIs sent (one per target in the mask)
    uint64_t polling_wakeups = 0;  // IPIs avoided by set_nr_if_polling
    uint64_t queued_behind = 0;    // pushes that found the queue non-empty (no IPI)
    uint64_t callbacks_run = 0;
};

class Smp {
public:
    // IPIs go through `ipi`, the machine's interrupt-controller driver.
    Smp(hw::Platform& platform, irqchip::Irqchip& ipi);
    Smp(const Smp&) = delete;
    Smp& operator=(const Smp&) = delete;

    void set_call_any_policy(CallAnyPolicy p) { any_policy_ = p; }
    // v6.17 "smp: Wait only if work was enqueued".
    void set_wait_only_if_enqueued(bool on) { wait_only_if_enqueued_ = on; }
    // A deliberate bug for the checker's mutant llist-no-empty-check (src/check/mutants.cpp)
    // and nothing else: a push that finds the queue empty sends no IPI, so the queued CSD is
    // run only if something else drains the queue (a lost wake-up).
    void set_llist_no_empty_check(bool on) { llist_no_empty_check_ = on; }
    void set_cpu_online(hw::CpuId cpu, bool online);
    [[nodiscard]] const hw::CpuMask& cpu_online_mask() const { return online_; }

    sim::Task<int> smp_call_function_single(hw::Cpu& self, hw::CpuId cpu, SmpCallFunc func, bool wait);
    // Caller-owned CSD; -EBUSY (returned as -16) if it is still locked.
    sim::Task<int> smp_call_function_single_async(hw::Cpu& self, hw::CpuId cpu, Csd& csd);
    sim::Task<> smp_call_function_many_cond(hw::Cpu& self, const hw::CpuMask& mask, SmpCallFunc func,
                                            unsigned scf_flags, SmpCondFunc cond);
    sim::Task<> smp_call_function_many(hw::Cpu& self, const hw::CpuMask& mask, SmpCallFunc func, bool wait);
    sim::Task<> on_each_cpu_cond_mask(hw::Cpu& self, SmpCondFunc cond, SmpCallFunc func, bool wait,
                                      const hw::CpuMask& mask);
    sim::Task<int> smp_call_function_any(hw::Cpu& self, const hw::CpuMask& mask, SmpCallFunc func, bool wait);
    // The CPU smp_call_function_any() would choose (exposed for tests and callers).
    [[nodiscard]] hw::CpuId call_any_target(hw::CpuId self, const hw::CpuMask& mask) const;

    // Task-context drain (idle loop after a polling wake-up, migration thread).
    sim::Task<> flush_smp_call_function_queue(hw::Cpu& self);
    // Idle loop: publish/clear TIF_POLLING_NRFLAG on this CPU's idle-task flags line.
    sim::Task<> set_polling(hw::Cpu& self, bool polling);

    // A caller-owned CSD with its own line in `owner`'s per-CPU area.
    Csd& alloc_csd(hw::CpuId owner, const char* name);

    [[nodiscard]] const SmpStats& stats() const { return stats_; }
    [[nodiscard]] hw::Platform& platform() { return p_; }
    [[nodiscard]] irqchip::Irqchip& irqchip() { return ipi_; }

private:
    struct PerCpu {
        hw::SimVar* queue_head = nullptr;  // call_single_queue: number of queued nodes
        std::vector<Csd*> queue;           // the nodes, push order
        Csd* csd_data = nullptr;           // async smp_call_function_single CSD
        Csd* stack_csd = nullptr;          // on-stack CSD of a sync smp_call_function_single
        hw::SimVar* tif_flags = nullptr;   // idle task thread flags (TIF_POLLING_NRFLAG)
        // Sized at this CPU's first multi-call (empty until then: memory grows with the work).
        hw::CpuMask cfd_cpumask;
        hw::CpuMask cfd_cpumask_ipi;
        hw::Bimodal wait_spins;  // the wait pass's "spin on this CSD?" (read_ahead.h)
    };

    Csd* new_csd(hw::CpuId home_cpu, hw::CacheLine& line);
    Csd& cfd_csd(hw::CpuId sender, hw::CpuId target);
    // `spun`, when given: whether the first look found the CSD locked.
    sim::Task<> csd_lock_wait(hw::Cpu& self, Csd& csd, bool* spun = nullptr);
    sim::Task<> csd_lock(hw::Cpu& self, Csd& csd, uint64_t type);
    sim::Task<> csd_unlock(hw::Cpu& self, Csd& csd);
    sim::Task<int> generic_exec_single(hw::Cpu& self, hw::CpuId cpu, Csd& csd);
    // llist_add onto cpu's queue; true if the queue was empty before.
    sim::Task<bool> llist_add(hw::Cpu& self, hw::CpuId cpu, Csd& csd);
    sim::Task<> __smp_call_single_queue(hw::Cpu& self, hw::CpuId cpu, Csd& csd);
    sim::Task<> send_call_function_single_ipi(hw::Cpu& self, hw::CpuId cpu);
    sim::Task<> __flush_smp_call_function_queue(hw::Cpu& self);
    sim::Task<> run_local(hw::Cpu& self, const SmpCallFunc& func);

    hw::Platform& p_;
    irqchip::Irqchip& ipi_;
    hw::Memory& mem_;
    std::vector<PerCpu> pcpu_;
    std::vector<std::unique_ptr<Csd>> csds_;
    // The multi-call CSD of each (sender, target) pair used so far, created at first use: the
    // kernel's per-sender percpu array (cfd->csd). A sender's row (one pointer per CPU) exists
    // once it sends a multi-call, so CPUs that never send cost nothing; a hash map keyed by the
    // pair cost seed 000 8% of its run time in the lookup, and took more memory per pair.
    std::vector<std::vector<Csd*>> cfd_csd_;
    // Two 32-byte CSDs per line in a target's per-CPU area: the line still filling, per target.
    std::vector<hw::CacheLine*> cfd_open_line_;
    hw::CpuMask online_;
    CallAnyPolicy any_policy_ = CallAnyPolicy::same_node;
    bool wait_only_if_enqueued_ = false;
    bool llist_no_empty_check_ = false;
    SmpStats stats_;
};

}  // namespace ipisim::kernel
