#include "kernel/smp/smp.h"

#include <fmt/format.h>

#include "hw/check_hooks.h"
#include "hw/cpu/spin.h"
#include "hw/observer.h"
#include "kernel/costs.h"

namespace ipisim::kernel {

using hw::Activity;
using hw::Cpu;
using hw::CpuId;
using hw::CpuMask;

namespace {
// TIF_NEED_RESCHED / TIF_POLLING_NRFLAG bits of the idle task's thread_info flags.
constexpr uint64_t TIF_NEED_RESCHED = 1ULL << 3;
constexpr uint64_t TIF_POLLING_NRFLAG = 1ULL << 21;
constexpr int kEBUSY = 16;

// The cross-call layer's labels (its IRQ handlers' included) are its own category.
uint32_t label(const char* name) {
    return hw::profile_label(name, hw::LabelCategory::cross_call);
}
}  // namespace

Smp::Smp(hw::Platform& platform, irqchip::Irqchip& ipi)
    : p_(platform),
      ipi_(ipi),
      mem_(platform.memory()),
      pcpu_(platform.nr_cpus()),
      cfd_csd_(platform.nr_cpus()),
      cfd_open_line_(platform.nr_cpus(), nullptr),
      online_(CpuMask::all(platform.nr_cpus())) {
    const hw::Topology& topo = p_.topology();
    // The handler's name in profiles and traces: x86's two IDT entry points, or arm64's
    // ipi_handler() (arch/arm64/kernel/smp.c: both sends raise IPI_CALL_FUNC, an SGI requested
    // as a per-CPU IRQ since v5.10, and do_handle_IPI() runs the same queue).
    const bool arm64 = p_.spec().arch == hw::Arch::arm64;
    const char* single_name = arm64 ? "ipi_handler" : "sysvec_call_function_single";
    const char* many_name = arm64 ? "ipi_handler" : "sysvec_call_function";
    label(single_name);  // tags the handler labels set below
    label(many_name);
    for (CpuId c = 0; c < p_.nr_cpus(); ++c) {
        PerCpu& pc = pcpu_[c];
        const uint32_t node = topo.node_of(c);
        pc.queue_head = &mem_.new_aligned_var(fmt::format("call_single_queue[{}]", c), node);
        pc.csd_data = new_csd(c, mem_.new_line(fmt::format("csd_data[{}]", c), node));
        pc.stack_csd = new_csd(c, mem_.new_line(fmt::format("stack_csd[{}]", c), node));
        pc.tif_flags = &mem_.new_aligned_var(fmt::format("idle_thread_info[{}].flags", c), node);
        // Both vectors run generic_smp_call_function_interrupt().
        auto handler = [this](Cpu& cpu, const sim::Interrupt&) -> sim::Task<> {
            co_await __flush_smp_call_function_queue(cpu);
        };
        p_.cpu(c).set_irq_handler(CALL_FUNCTION_SINGLE_VECTOR, single_name, handler);
        p_.cpu(c).set_irq_handler(CALL_FUNCTION_VECTOR, many_name, handler);
    }
}

void Smp::set_cpu_online(CpuId cpu, bool online) {
    if (online) {
        online_.set(cpu);
    } else {
        online_.clear(cpu);
    }
    // x86: the outgoing CPU soft-disables its local APIC (apic_soft_disable()), so that an
    // all-but-self shorthand does not reach it; an incoming one enables it again.
    ipi_.hardware().set_software_enabled(cpu, online);
}

Csd* Smp::new_csd(CpuId home_cpu, hw::CacheLine& line) {
    auto csd = std::make_unique<Csd>();
    csd->flags = &mem_.new_var(line, 0);
    csd->func = &mem_.new_var(line, 0);
    csd->src = home_cpu;
    csds_.push_back(std::move(csd));
    return csds_.back().get();
}

Csd& Smp::alloc_csd(CpuId owner, const char* name) {
    return *new_csd(owner, mem_.new_line(fmt::format("{}[{}]", name, owner), p_.topology().node_of(owner)));
}

Csd& Smp::cfd_csd(CpuId sender, CpuId target) {
    std::vector<Csd*>& row = cfd_csd_[sender];
    if (row.empty()) row.assign(p_.nr_cpus(), nullptr);
    Csd*& slot = row[target];
    if (slot == nullptr) {
        // per_cpu_ptr(cfd->csd, target): in the target's per-CPU area, two CSDs per line.
        hw::CacheLine*& open = cfd_open_line_[target];
        if (open == nullptr) {
            open = &mem_.new_line(fmt::format("cfd_csd@{}", target), p_.topology().node_of(target));
            slot = new_csd(sender, *open);
        } else {
            slot = new_csd(sender, *open);
            open = nullptr;  // the line is full
        }
    }
    return *slot;
}

sim::Task<> Smp::csd_lock_wait(Cpu& self, Csd& csd, bool* spun) {
    static const uint32_t l = label("csd_lock_wait");
    auto scope = self.function(l);
    const bool locked = (mem_.peek(self.id(), *csd.flags) & CSD_FLAG_LOCK) != 0;  // histogram: waits that wait
    const sim::Picos started = self.now();
    uint32_t looks = 0;
    co_await hw::spin_until(self, mem_, *csd.flags, [&looks](uint64_t f) {
        ++looks;
        return (f & CSD_FLAG_LOCK) == 0;
    });
    if (spun != nullptr) *spun = looks > 1;
    if (locked) hw::record_latency("csd_lock_wait", self.now() - started);
}

sim::Task<> Smp::csd_lock(Cpu& self, Csd& csd, uint64_t type) {
    co_await csd_lock_wait(self, csd);
    co_await mem_.store(self.id(), *csd.flags, CSD_FLAG_LOCK | type);
}

sim::Task<> Smp::csd_unlock(Cpu& self, Csd& csd) {
    // smp_store_release(&csd->node.u_flags, 0)
    // The flags as this CPU sees them: its own csd_lock() store may still be in its store buffer.
    IPISIM_CHECK_HOOK(csd_unlock(self.id(), *csd.flags, mem_.peek(self.id(), *csd.flags)));
    co_await mem_.store(self.id(), *csd.flags, 0);
}

sim::Task<bool> Smp::llist_add(Cpu& self, CpuId cpu, Csd& csd) {
    PerCpu& pc = pcpu_[cpu];
    IPISIM_CHECK_HOOK(csd_locked(self.id(), *csd.flags, cpu));
    const uint64_t before = co_await mem_.fetch_add(self.id(), *pc.queue_head, 1);
    pc.queue.push_back(&csd);
    if (hw::Observer* t = hw::tracer()) t->queue_changed(cpu, "call_single_queue", pc.queue.size(), self.now());
    co_return before == 0;
}

sim::Task<> Smp::send_call_function_single_ipi(Cpu& self, CpuId cpu) {
    // call_function_single_prep_ipi() -> set_nr_if_polling(idle task of cpu)
    PerCpu& pc = pcpu_[cpu];
    const uint64_t flags = co_await mem_.load(self.id(), *pc.tif_flags);
    if ((flags & TIF_POLLING_NRFLAG) != 0 && p_.cpu(cpu).polling()) {
        co_await mem_.fetch_or(self.id(), *pc.tif_flags, TIF_NEED_RESCHED);
        p_.cpu(cpu).wake_polling();
        ++stats_.polling_wakeups;
        co_return;
    }
    ++stats_.ipis_single;
    co_await ipi_.send_IPI(self, cpu, CALL_FUNCTION_SINGLE_VECTOR);
}

sim::Task<> Smp::__smp_call_single_queue(Cpu& self, CpuId cpu, Csd& csd) {
    const bool was_empty = co_await llist_add(self, cpu, csd);
    if (was_empty && !llist_no_empty_check_) {
        co_await send_call_function_single_ipi(self, cpu);
    } else {
        ++stats_.queued_behind;
    }
}

sim::Task<> Smp::run_local(Cpu& self, const SmpCallFunc& func) {
    self.local_irq_disable();
    co_await func(self);
    ++stats_.callbacks_run;
    co_await self.local_irq_enable();
}

sim::Task<int> Smp::generic_exec_single(Cpu& self, CpuId cpu, Csd& csd) {
    if (cpu == self.id()) {
        // Self-call shortcut: unlock and call directly with IRQs off; no IPI.
        co_await csd_unlock(self, csd);
        co_await run_local(self, csd.fn);
        co_return 0;
    }
    if (cpu >= p_.nr_cpus() || !online_.test(cpu)) {
        co_await csd_unlock(self, csd);
        co_return -kENXIO;
    }
    co_await __smp_call_single_queue(self, cpu, csd);
    co_return 0;
}

sim::Task<int> Smp::smp_call_function_single(Cpu& self, CpuId cpu, SmpCallFunc func, bool wait) {
    static const uint32_t l = label("smp_call_function_single");
    auto scope = self.function(l, Activity::kernel);
    ++stats_.calls_single;
    co_await self.compute_cycles(costs::smp_call_function_single);
    PerCpu& me = pcpu_[self.id()];
    Csd& csd = wait ? *me.stack_csd : *me.csd_data;
    if (wait) {
        // On-stack CSD, initialised locked and SYNC: private, no lock spin.
        co_await mem_.store(self.id(), *csd.flags, CSD_FLAG_LOCK | CSD_TYPE_SYNC);
    } else {
        // This CPU's csd_data: spins while its previous async call is unconsumed.
        co_await csd_lock(self, csd, CSD_TYPE_ASYNC);
    }
    csd.fn = std::move(func);
    csd.dst = cpu;
    co_await mem_.store(self.id(), *csd.func, 1);
    const int err = co_await generic_exec_single(self, cpu, csd);
    if (wait && err == 0) co_await csd_lock_wait(self, csd);
    co_return err;
}

sim::Task<int> Smp::smp_call_function_single_async(Cpu& self, CpuId cpu, Csd& csd) {
    const uint64_t flags = co_await mem_.load(self.id(), *csd.flags);
    if ((flags & CSD_FLAG_LOCK) != 0) co_return -kEBUSY;
    co_await mem_.store(self.id(), *csd.flags, CSD_FLAG_LOCK | CSD_TYPE_ASYNC);
    csd.dst = cpu;
    co_return co_await generic_exec_single(self, cpu, csd);
}

sim::Task<> Smp::smp_call_function_many_cond(Cpu& self, const CpuMask& mask, SmpCallFunc func, unsigned scf_flags,
                                             SmpCondFunc cond) {
    static const uint32_t l = label("smp_call_function_many_cond");
    auto scope = self.function(l, Activity::kernel);
    ++stats_.calls_many;
    const CpuId me = self.id();
    const bool wait = (scf_flags & SCF_WAIT) != 0;
    co_await self.compute_cycles(costs::smp_call_function_many_setup);

    bool run_local = (scf_flags & SCF_RUN_LOCAL) != 0 && mask.test(me);
    if (run_local && cond) run_local = co_await cond(self, me);

    PerCpu& pc = pcpu_[me];
    CpuMask& targets = pc.cfd_cpumask;
    targets = mask;
    targets &= online_;
    targets.clear(me);
    bool run_remote = !targets.empty();
    bool enqueued = false;
    if (run_remote) {
        if (pc.cfd_cpumask_ipi.nr_cpus() != p_.nr_cpus()) pc.cfd_cpumask_ipi = CpuMask(p_.nr_cpus());
        pc.cfd_cpumask_ipi.clear_all();
        uint32_t nr_cpus = 0;
        CpuId last_cpu = 0;
        for (CpuId cpu : targets.to_vector()) {
            co_await self.compute_cycles(costs::smp_call_function_many_per_cpu);
            if (cond) {
                const bool should = co_await cond(self, cpu);
                if (!should) {
                    targets.clear(cpu);
                    continue;
                }
            }
            Csd& csd = cfd_csd(me, cpu);
            co_await csd_lock(self, csd, wait ? CSD_TYPE_SYNC : CSD_TYPE_ASYNC);
            csd.fn = func;
            csd.dst = cpu;
            co_await mem_.store(me, *csd.func, 1);
            enqueued = true;
            const bool was_empty = co_await llist_add(self, cpu, csd);
            if (was_empty && !llist_no_empty_check_) {
                pc.cfd_cpumask_ipi.set(cpu);
                ++nr_cpus;
                last_cpu = cpu;
            } else {
                ++stats_.queued_behind;
            }
        }
        if (nr_cpus == 1) {
            co_await send_call_function_single_ipi(self, last_cpu);
        } else if (nr_cpus > 1) {
            // arch_send_call_function_ipi_mask(): no polling shortcut on this path. On x86,
            // native_send_call_func_ipi(): one all-but-self shorthand IPI when the mask holds
            // every other online CPU (kernel/irqchip/irqchip.h).
            stats_.ipis_many += nr_cpus;
            self.local_irq_disable();
            co_await ipi_.send_call_func_ipi(self, pc.cfd_cpumask_ipi, online_, CALL_FUNCTION_VECTOR);
            co_await self.local_irq_enable();
        }
    }
    // The local call overlaps remote delivery.
    if (run_local) co_await this->run_local(self, func);

    if (wait_only_if_enqueued_) run_remote = enqueued;
    if (run_remote && wait) {
        // for_each_cpu(cpu, cfd->cpumask) csd_lock_wait(): the next CSDs' lines are read ahead
        // while one is outstanding (hw/coherence/read_ahead.h).
        const std::vector<CpuId> waits = targets.to_vector();
        hw::ReadAhead ahead(
            mem_, me, waits.size(),
            [this, me, &waits](size_t i) -> hw::SimVar& { return *cfd_csd(me, waits[i]).flags; }, pc.wait_spins);
        for (size_t i = 0; i < waits.size(); ++i) {
            ahead.before(i);
            bool spun = false;
            co_await csd_lock_wait(self, cfd_csd(me, waits[i]), &spun);
            ahead.after(i, spun);
        }
    }
}

sim::Task<> Smp::smp_call_function_many(Cpu& self, const CpuMask& mask, SmpCallFunc func, bool wait) {
    co_await smp_call_function_many_cond(self, mask, std::move(func), wait ? SCF_WAIT : 0, nullptr);
}

sim::Task<> Smp::on_each_cpu_cond_mask(Cpu& self, SmpCondFunc cond, SmpCallFunc func, bool wait, const CpuMask& mask) {
    unsigned flags = SCF_RUN_LOCAL | (wait ? SCF_WAIT : 0);
    co_await smp_call_function_many_cond(self, mask, std::move(func), flags, std::move(cond));
}

CpuId Smp::call_any_target(CpuId self, const CpuMask& mask) const {
    if (mask.test(self)) return self;
    const hw::Topology& topo = p_.topology();
    const uint32_t node = topo.node_of(self);
    CpuMask candidates = mask;
    candidates &= online_;
    if (any_policy_ == CallAnyPolicy::same_node) {
        for (CpuId c : topo.cpus_in_node(node)) {
            if (candidates.test(c)) return c;
        }
        return candidates.first();  // cpumask_any_and
    }
    // Nearest by NUMA distance: same node, then same package, then the rest; lowest CPU first.
    CpuId best = candidates.nr_cpus();
    int best_rank = 3;
    candidates.for_each([&](CpuId c) {
        const int rank = topo.node_of(c) == node ? 0 : topo.package_of(c) == topo.package_of(self) ? 1 : 2;
        if (rank < best_rank) {
            best_rank = rank;
            best = c;
        }
    });
    return best;
}

sim::Task<int> Smp::smp_call_function_any(Cpu& self, const CpuMask& mask, SmpCallFunc func, bool wait) {
    const CpuId cpu = call_any_target(self.id(), mask);
    if (cpu >= p_.nr_cpus()) co_return -kENXIO;
    co_return co_await smp_call_function_single(self, cpu, std::move(func), wait);
}

sim::Task<> Smp::__flush_smp_call_function_queue(Cpu& self) {
    static const uint32_t l = label("__flush_smp_call_function_queue");
    auto scope = self.function(l);
    PerCpu& pc = pcpu_[self.id()];
    // llist_del_all(): take the whole batch with one xchg.
    const uint64_t n = co_await mem_.xchg(self.id(), *pc.queue_head, 0);
    if (n == 0) co_return;
    std::vector<Csd*> batch(pc.queue.begin(), pc.queue.begin() + static_cast<std::ptrdiff_t>(n));
    pc.queue.erase(pc.queue.begin(), pc.queue.begin() + static_cast<std::ptrdiff_t>(n));
    if (hw::Observer* t = hw::tracer()) t->queue_changed(self.id(), "call_single_queue", pc.queue.size(), self.now());
    co_await self.compute_cycles(sim::Cycles(costs::flush_queue_setup + costs::flush_queue_per_node * n));
    // Pass 1: SYNC callbacks run, then their CSD is released.
    for (Csd* csd : batch) {
        // CSD_TYPE(csd), then csd->func and csd->info on the same line: issued together.
        const auto [flags, func] = co_await mem_.loads(self.id(), csd->flags, csd->func);
        (void)func;
        if ((flags & CSD_FLAG_TYPE_MASK) != CSD_TYPE_SYNC) continue;
        SmpCallFunc fn = csd->fn;
        co_await fn(self);
        ++stats_.callbacks_run;
        co_await csd_unlock(self, *csd);
    }
    // Pass 2: ASYNC CSDs are released before their callback runs.
    for (Csd* csd : batch) {
        const uint64_t flags = csd->flags->peek();
        if ((flags & CSD_FLAG_LOCK) == 0 || (flags & CSD_FLAG_TYPE_MASK) != CSD_TYPE_ASYNC) continue;
        co_await mem_.load(self.id(), *csd->func);
        SmpCallFunc fn = csd->fn;
        co_await csd_unlock(self, *csd);
        co_await fn(self);
        ++stats_.callbacks_run;
    }
}

sim::Task<> Smp::flush_smp_call_function_queue(Cpu& self) {
    PerCpu& pc = pcpu_[self.id()];
    const uint64_t queued = co_await mem_.load(self.id(), *pc.queue_head);
    if (queued == 0) co_return;
    self.local_irq_disable();
    co_await __flush_smp_call_function_queue(self);
    co_await self.local_irq_enable();
}

sim::Task<> Smp::set_polling(Cpu& self, bool polling) {
    // __current_set_polling() / __current_clr_polling(): set_bit / clear_bit, locked RMWs (so
    // the clear is ordered before the idle exit's read of call_single_queue, as the kernel's
    // smp_mb__after_atomic() relies on), skipped when the flag is already as wanted.
    PerCpu& pc = pcpu_[self.id()];
    const uint64_t f = mem_.peek(self.id(), *pc.tif_flags);
    const uint64_t want = polling ? (f | TIF_POLLING_NRFLAG) : (f & ~(TIF_POLLING_NRFLAG | TIF_NEED_RESCHED));
    if (want == f) co_return;
    if (polling) {
        co_await mem_.fetch_or(self.id(), *pc.tif_flags, TIF_POLLING_NRFLAG);
    } else {
        co_await mem_.fetch_and(self.id(), *pc.tif_flags, ~(TIF_POLLING_NRFLAG | TIF_NEED_RESCHED));
    }
}

}  // namespace ipisim::kernel
