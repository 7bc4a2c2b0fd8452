#include "kernel/sched/cpuidle.h"

#include <algorithm>

#include "kernel/sched/sched.h"

namespace ipisim::kernel {

void Cpuidle::select(hw::Cpu& cpu, sim::Picos next_timer) {
    if (!enabled_ || cpu.spec().idle.empty()) return;
    PerCpu& pc = cpus_.at(cpu.id());
    pc.cpu = &cpu;
    pc.entered = cpu.now();
    pc.tick_fired = false;
    // The CPU's next periodic tick (on the jiffy boundaries unless skew_tick).
    const sim::Picos next_tick = tick_.next_tick(cpu.id(), cpu.now());
    const MenuTiming timing{std::min(next_timer, kTimerHorizon), next_tick - cpu.now(), tick_.period()};
    const MenuChoice c = menu_select(cpu.spec(), pc.dev, timing, two_sided_);
    cpu.set_idle_state(c.idx);
    if (entries_.size() < cpu.spec().idle.size()) entries_.resize(cpu.spec().idle.size());
    ++entries_[c.idx];
    if (!c.stop_tick) cpu.engine().schedule_at(next_tick, &Cpuidle::on_tick, &pc, pc.generation, cpu.id());
}

void Cpuidle::reflect(hw::Cpu& cpu) {
    if (!enabled_ || cpu.spec().idle.empty()) return;
    PerCpu& pc = cpus_.at(cpu.id());
    ++pc.generation;
    // The state select() set: nothing changes it while the CPU idles.
    menu_update(cpu.spec(), pc.dev, cpu.idle_index(), cpu.now() - pc.entered, pc.tick_fired, tick_.period());
}

void Cpuidle::on_tick(void* obj, uint32_t generation) {
    auto* pc = static_cast<PerCpu*>(obj);
    if (pc->generation != generation || !pc->cpu->in_idle()) return;
    pc->tick_fired = true;
    pc->cpu->raise(sim::Interrupt{LOCAL_TIMER_VECTOR, 0});
}

}  // namespace ipisim::kernel
