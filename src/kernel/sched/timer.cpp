// Sleeping with a timeout (schedule_timeout / msleep) and the local timer interrupt that ends
// it: the expiry is an interrupt on the sleeper's CPU, so an idle CPU leaves its idle state.
#include <algorithm>
#include <stdexcept>

#include "kernel/costs.h"
#include "kernel/sched/sched.h"

namespace ipisim::kernel {

using hw::Cpu;

sim::Task<> Sched::sleep_for(Cpu& cpu, sim::Picos d) {
    Thread* t = current(cpu.id());
    if (t == nullptr) throw std::logic_error("sleep_for: not called by a thread");
    co_await cpu.compute_cycles(costs::schedule_timeout);
    t->state = TaskState::uninterruptible;
    rq_[t->cpu].timers.push_back(cpu.now() + d);
    p_.engine().schedule_in(d, &Sched::on_timer, t, 0, t->proc->id());
    co_await schedule(cpu);
}

void Sched::on_timer(void* obj, uint32_t) {
    auto* t = static_cast<Thread*>(obj);
    Sched& s = *t->sched;
    std::vector<sim::Picos>& timers = s.rq_[t->cpu].timers;
    const auto it = std::find(timers.begin(), timers.end(), s.p_.engine().now());
    if (it == timers.end()) throw std::logic_error("Sched: a timer fired that was not pending");
    timers.erase(it);
    s.rq_[t->cpu].expired.push_back(t);
    s.p_.cpu(t->cpu).raise(sim::Interrupt{LOCAL_TIMER_VECTOR, 0});
}

sim::Picos Sched::next_timer(hw::CpuId c) const {
    const std::vector<sim::Picos>& timers = rq_.at(c).timers;
    if (timers.empty()) return MENU_NO_TIMER;
    return saturating_sub(*std::min_element(timers.begin(), timers.end()), p_.engine().now());
}

sim::Task<> Sched::local_timer_interrupt(Cpu& cpu) {
    ++stats_.timer_interrupts;
    co_await cpu.compute_cycles(costs::local_timer_interrupt);
    std::vector<Thread*> expired;
    expired.swap(rq_[cpu.id()].expired);
    for (Thread* t : expired) co_await wake_up_process(cpu, *t);
}

}  // namespace ipisim::kernel
