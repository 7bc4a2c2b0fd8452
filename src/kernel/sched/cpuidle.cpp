#include "kernel/sched/cpuidle.h"

#include "kernel/sched/sched.h"

namespace ipisim::kernel {

size_t Cpuidle::choose(const hw::MachineSpec& spec, bool long_next, sim::Picos last) {
    const std::vector<hw::IdleState>& states = spec.idle;
    if (states.empty()) return 0;
    const sim::Picos predicted = long_next ? sim::Picos::max() : last;
    size_t idx = 0;
    for (size_t i = 0; i < states.size(); ++i) {
        if (states[i].target_residency > predicted) {
            // Use a physical idle state, not busy polling (no timer is due soon).
            if (states[idx].software_poll() && !states[i].software_poll()) idx = i;
            break;
        }
        idx = i;
    }
    return idx;
}

sim::Picos Cpuidle::deduct_exit_latency(sim::Picos measured, sim::Picos exit_latency) {
    if (measured > exit_latency + exit_latency) return measured - exit_latency;
    return sim::Picos(measured.count() / 2);
}

void Cpuidle::select(hw::Cpu& cpu) {
    if (!enabled_ || cpu.spec().idle.empty()) return;
    PerCpu& pc = cpus_.at(cpu.id());
    pc.cpu = &cpu;
    pc.entered = cpu.now();
    pc.tick_fired = false;
    const size_t idx = choose(cpu.spec(), pc.long_next, pc.last);
    cpu.set_idle_state(idx);
    if (entries_.size() < cpu.spec().idle.size()) entries_.resize(cpu.spec().idle.size());
    ++entries_[idx];
    // The tick is stopped only for the deepest choice; otherwise it wakes the CPU to re-select.
    if (idx + 1 < cpu.spec().idle.size()) {
        cpu.engine().schedule_in(tick_, &Cpuidle::on_tick, &pc, pc.generation, cpu.id());
    }
}

void Cpuidle::reflect(hw::Cpu& cpu) {
    if (!enabled_ || cpu.spec().idle.empty()) return;
    PerCpu& pc = cpus_.at(cpu.id());
    ++pc.generation;
    // The state select() set: nothing changes it while the CPU idles.
    pc.last = deduct_exit_latency(cpu.now() - pc.entered, cpu.idle_state()->exit_latency);
    pc.long_next = pc.tick_fired;
}

void Cpuidle::on_tick(void* obj, uint32_t generation) {
    auto* pc = static_cast<PerCpu*>(obj);
    if (pc->generation != generation || !pc->cpu->in_idle()) return;
    pc->tick_fired = true;
    pc->cpu->raise(sim::Interrupt{LOCAL_TIMER_VECTOR, 0});
}

}  // namespace ipisim::kernel
