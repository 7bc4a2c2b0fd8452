#include "kernel/kernel.h"

#include <fmt/format.h>

#include "kernel/costs.h"

namespace ipisim::kernel {

Kernel::Kernel(hw::Platform& platform)
    : p_(platform),
      irqchip_(irqchip::make_irqchip(platform.intc())),
      smp_(std::make_unique<Smp>(platform, *irqchip_)),
      work_(platform.nr_cpus()),
      idle_tasks_(platform.nr_cpus(), nullptr) {}

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
        const bool poll = st != nullptr && st->polling;
        if (poll) co_await smp_->set_polling(cpu, true);
        co_await cpu.idle();
        if (hooks_ != nullptr) hooks_->cpuidle_reflect(cpu);
        if (poll) co_await smp_->set_polling(cpu, false);
        co_await cpu.compute_cycles(sim::Cycles(costs::do_idle_exit));
        co_await smp_->flush_smp_call_function_queue(cpu);
    }
}

}  // namespace ipisim::kernel
