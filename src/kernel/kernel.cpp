#include "kernel/kernel.h"

#include <fmt/format.h>

#include "kernel/aperfmperf/aperfmperf.h"
#include "kernel/costs.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/sched_link.h"
#include "kernel/resctrl/resctrl.h"
#include "kernel/sched/sched.h"
#include "kernel/workqueue/workqueue.h"

namespace ipisim::kernel {

namespace {

// The IPI drivers' kernel-side choices. apic_use_ipi_shorthand: the shorthand path of
// native_send_call_func_ipi came with the v5.4 rework (arch/x86/kernel/apic/ipi.c), older than
// any kernel the model knows (kOldestModeled); the boot option no_ipi_broadcast=1 keeps it off.
irqchip::IrqchipConfig irqchip_config(const KernelConfig& k) {
    static_assert(kOldestModeled >= Version{5, 4});
    return irqchip::IrqchipConfig{.gic_ipi_barrier = k.gic_barrier, .apic_use_ipi_shorthand = !k.no_ipi_broadcast};
}

}  // namespace

Kernel::Kernel(hw::Platform& platform, KernelConfig config)
    : p_(platform),
      config_(std::move(config)),
      version_(config_.parsed_version()),
      machine_(platform.spec()),
      tick_(config_.hz, config_.skew_tick, platform.nr_cpus()),
      irqchip_(irqchip::make_irqchip(platform.intc(), irqchip_config(config_))),
      smp_(std::make_unique<Smp>(platform, *irqchip_)),
      work_(platform.nr_cpus()),
      idle_tasks_(platform.nr_cpus(), nullptr) {
    smp_->set_call_any_policy(config_.call_any_policy);
}

// Coroutine frames (work queued here, threads of the scheduler) reference the subsystems.
Kernel::~Kernel() {
    p_.engine().shutdown();
}

Sched& Kernel::sched() {
    if (!sched_) {
        sched_ = std::make_unique<Sched>(*this);
        if (mm_) sched_->set_mm_context_switch(&mm_->sched_link());
    }
    return *sched_;
}

Workqueue& Kernel::workqueue() {
    if (!workqueue_) workqueue_ = std::make_unique<Workqueue>(sched());
    return *workqueue_;
}

Resctrl& Kernel::resctrl() {
    if (!resctrl_) resctrl_ = std::make_unique<Resctrl>(sched(), workqueue());
    return *resctrl_;
}

Aperfmperf& Kernel::aperfmperf() {
    if (!aperfmperf_) {
        aperfmperf_ = std::make_unique<Aperfmperf>(p_, *smp_);
        aperfmperf_->set_variant(config_.arch_freq_prepare_all);
        aperfmperf_->set_hz(config_.hz);
    }
    return *aperfmperf_;
}

mm::Mm& Kernel::mm() {
    if (!mm_) {
        mm_ = std::make_unique<mm::Mm>(*this, config_.tlb_flush);
        mm_->set_madvise_lru_add_drain(config_.madvise_lru_add_drain);
        if (sched_) sched_->set_mm_context_switch(&mm_->sched_link());
    }
    return *mm_;
}

void Kernel::run_on(hw::CpuId c, CpuWork work) {
    work_.at(c).push_back(std::move(work));
    p_.cpu(c).wake_polling();
}

void Kernel::boot() {
    if (booted_) return;
    booted_ = true;
    for (hw::CpuId c = 0; c < p_.nr_cpus(); ++c) {
        sim::Process& proc = p_.engine().spawn(fmt::format("cpu{}", c), cpu_main(c));
        p_.cpu(c).set_running(&proc);
        idle_tasks_[c] = &proc;
    }
}

void Kernel::set_idle_state(hw::CpuId c, size_t index) {
    p_.cpu(c).set_idle_state(index);
}

sim::Task<> Kernel::syscall_entry_exit(hw::Cpu& cpu) {
    co_await cpu.compute(p_.spec().cpu.syscall);
}

hw::SimVar& Kernel::new_aligned_var(const std::string& name, uint32_t node) {
    return p_.memory().new_aligned_var(name, node);
}

sim::Task<> Kernel::write_once(hw::Cpu& cpu, hw::SimVar& var, uint64_t value) {
    co_await p_.memory().store(cpu.id(), var, value);
}

uint64_t Kernel::rar_messages() const {
    return p_.intc().fabric().stats().rar_messages;
}

sim::Picos Kernel::cpu_time(hw::CpuId c, const std::function<bool(const std::string& label, hw::Activity)>& select) {
    hw::CpuProfile& prof = p_.cpu(c).profile();
    prof.settle(p_.engine().now());
    sim::Picos sum;
    for (uint32_t l = 0; l < prof.nr_labels(); ++l) {
        if (prof.time_in_label(l) == sim::Picos::zero()) continue;
        const std::string& name = hw::profile_label_name(l);
        for (size_t a = 0; a < hw::kActivities; ++a) {
            const auto act = static_cast<hw::Activity>(a);
            if (select(name, act)) sum += prof.time(l, act);
        }
    }
    return sum;
}

void Kernel::reset_profiles() {
    for (hw::CpuId c = 0; c < p_.nr_cpus(); ++c) p_.cpu(c).profile().reset(p_.engine().now());
}

sim::Proc Kernel::cpu_main(hw::CpuId c) {
    hw::Cpu& cpu = p_.cpu(c);
    for (;;) {
        while (!work_[c].empty()) {
            CpuWork w = std::move(work_[c].front());
            work_[c].pop_front();
            co_await w(cpu);
        }
        if (hooks_ != nullptr && hooks_->need_resched(c)) {
            co_await hooks_->schedule_idle(cpu);
            continue;
        }
        // do_idle()
        if (hooks_ != nullptr) hooks_->cpuidle_select(cpu);
        const hw::IdleState* st = cpu.idle_state();
        // poll_idle() and mwait_idle_with_hints() (arch/x86/include/asm/mwait.h) publish
        // TIF_POLLING_NRFLAG while they wait: a write to the flags ends the wait, no IPI needed.
        const bool poll = st != nullptr && st->monitors_flags();
        if (poll) co_await smp_->set_polling(cpu, true);
        co_await cpu.idle();
        if (hooks_ != nullptr) hooks_->cpuidle_reflect(cpu);
        if (poll) co_await smp_->set_polling(cpu, false);
        co_await cpu.compute_cycles(costs::do_idle_exit);
        co_await smp_->flush_smp_call_function_queue(cpu);
    }
}

}  // namespace ipisim::kernel
