#include "hw/cpu/cpu.h"

#include "hw/check_hooks.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ipisim::hw {

using sim::Picos;

Cpu::Cpu(sim::Engine& eng, CpuId id, const MachineSpec& spec) : eng_(eng), id_(id), spec_(spec) {
    // Default idle state: the deepest one the machine declares (an idle CPU that nothing keeps
    // awake ends up there); workloads pick others with set_idle_state().
    if (!spec_.idle.empty()) idle_index_ = spec_.idle.size() - 1;
}

sim::Process& Cpu::self() const {
    if (running_ == nullptr) throw std::logic_error(fmt::format("cpu{}: no process is running", id_));
    return *running_;
}

void Cpu::set_irq_handler(uint32_t vector, std::string_view name, IrqHandler handler) {
    const uint32_t label = profile_label(name);
    for (Handler& h : handlers_) {
        if (h.vector == vector) {
            h = Handler{vector, label, std::move(handler)};
            return;
        }
    }
    handlers_.push_back(Handler{vector, label, std::move(handler)});
}

void Cpu::raise(const sim::Interrupt& irq) {
    self().interrupt(irq);
}

uint32_t Cpu::rate_percent() const {
    for (const Cpu* s : siblings_) {
        if (s->busy_) return spec_.cpu.smt_throughput_percent;
    }
    return 100;
}

void Cpu::set_busy(bool b) {
    if (busy_ == b) return;
    busy_ = b;
    for (Cpu* s : siblings_) s->replan_.notify_all();
}

void Cpu::steal(Picos t, uint32_t label) {
    // `t` of work that just ran on this CPU (it occupied [now - t, now]); the profile shows it
    // under its own label rather than the function it displaced.
    profile_.transfer(t, label, Activity::kernel, now());
    if (busy_) {
        stolen_ += t.count();  // the compute in progress was paused
        replan_.notify_all();
    } else if (stalling_) {
        stall_extra_ += t.count();  // the instruction stream was displaced
    }
    // Otherwise the CPU was waiting for an event (spin, idle): the work overlapped the wait.
}

sim::Task<> Cpu::compute(Picos work) {
    uint64_t remaining = work.count() + stolen_;
    stolen_ = 0;
    if (remaining == 0) co_return;
    // The code an interrupt can pollute is the CPU's own context, not a handler's compute.
    const bool context = irq_depth_ == 0;
    if (context) {
        // A refill still owed from before an idle period is void: idle left nothing warm.
        if (warm_wakeups_ != idle_wakeups_) pollution_owed_ = 0;
        warm_ = true;
        warm_wakeups_ = idle_wakeups_;
    }
    set_busy(true);
    while (remaining > 0) {
        if (context && pollution_owed_ > 0) {
            co_await refill();
            continue;
        }
        const uint64_t rate = rate_percent();
        const uint64_t duration = (remaining * 100 + rate - 1) / rate;
        const Picos start = now();
        // An interrupt, and a sibling that starts or stops computing, are events: when none comes
        // before the work ends, nothing can cut it short or re-plan it, and it ends in place, as
        // a hit does (sim::Engine::advance_inline: the timer's time and tag, no queue trip).
        sim::Process* proc = sim::Process::current();
        if (!proc->interrupt_ready() && eng_.advance_inline(start + Picos(duration), proc->id())) {
            remaining = stolen_;
            stolen_ = 0;
            continue;
        }
        sim::Wake w = co_await replan_.wait_for(Picos(duration));
        const uint64_t done = (now() - start).count() * rate / 100;
        remaining = (w.timed_out() || done >= remaining) ? 0 : remaining - done;
        remaining += stolen_;
        stolen_ = 0;
        if (w.interrupted()) {
            set_busy(false);
            co_await take_irq(w.irq);
            set_busy(true);
        }
    }
    set_busy(false);
    if (CheckHooks* h = check_hooks()) {
        const Activity a = profile().activity();
        h->compute_done(id_, a == Activity::user || a == Activity::kernel);
    }
}

sim::Task<> Cpu::stall(Picos t) {
    if (t == Picos::zero()) co_return;
    sim::Process& p = self();
    p.mask();
    const bool outer = !stalling_;
    stalling_ = true;
    co_await sim::delay(eng_, t);
    // Stolen work (microcode) displaced the instruction stream: the stall ends that much later.
    while (outer && stall_extra_ > 0) {
        const Picos extra(stall_extra_);
        stall_extra_ = 0;
        co_await sim::delay(eng_, extra);
    }
    if (outer) stalling_ = false;
    p.unmask();  // anything that arrived stays pending for the next interruptible wait
}

void Cpu::local_irq_disable() {
    self().mask();
}

bool Cpu::irqs_disabled() const {
    return self().masked();
}

sim::Task<> Cpu::local_irq_enable() {
    sim::Process& p = self();
    if (p.unmask()) co_await take_irq(p.take_pending());
}

sim::Task<> Cpu::refill() {
    static const uint32_t label = profile_label("irq_pollution");
    const uint32_t saved_label = profile_.label();
    const Activity saved_activity = profile_.activity();
    profile_.change(label, Activity::irq, now());
    // Cache misses and pipeline refill: latency-bound, not slowed by a busy SMT sibling.
    while (pollution_owed_ > 0) {
        const Picos start = now();
        sim::Wake w = co_await replan_.wait_for(Picos(pollution_owed_));
        const uint64_t done = (now() - start).count();
        pollution_owed_ = (w.timed_out() || done >= pollution_owed_) ? 0 : pollution_owed_ - done;
        if (w.interrupted()) {
            set_busy(false);
            co_await take_irq(w.irq);  // owes the whole refill again (see take_irq)
            set_busy(true);
        }
    }
    profile_.change(saved_label, saved_activity, now());
}

sim::Task<> Cpu::take_irq(sim::Interrupt irq) {
    sim::Process& p = self();
    const uint32_t saved_label = profile_.label();
    const Activity saved_activity = profile_.activity();
    // Interrupt pollution (docs/mechanisms.md §4.4): the handlers evict part of the interrupted
    // code's cache, TLB and branch-predictor state and drain its pipeline; that code pays the
    // refill, irq_pollution, when it next runs (Cpu::compute). Only a context that ran code since
    // the CPU last left idle has state to lose: an idle CPU's, or one just woken, has none.
    // Once per burst, not per interrupt: interrupts taken back to back (the pending loop below, or
    // several before the code runs again) evict the same sets, so one refill restores them. An
    // interrupt that arrives during the refill evicts again what was refilled so far: the owed
    // refill is the whole cost again (max rule, never a sum).
    const bool polluting = irq_depth_ == 0 && warm_ && warm_wakeups_ == idle_wakeups_;
    ++irq_depth_;
    p.mask();  // hardware disables interrupts on entry
    for (;;) {
        ++irqs_taken_;
        const Handler* found = nullptr;
        for (const Handler& h : handlers_) {
            if (h.vector == irq.vector && h.fn) found = &h;
        }
        if (found == nullptr) {
            throw std::logic_error(fmt::format("cpu{}: no handler for vector {:#x}", id_, irq.vector));
        }
        const Handler& h = *found;
        profile_.change(h.label, Activity::irq, now());
        co_await stall(spec_.cpu.irq_entry);
        co_await stall(spec_.cpu.eoi);
        co_await h.fn(*this, irq);
        co_await stall(spec_.cpu.irq_exit);
        // x86 returns with IRET, a serializing instruction: the handler's stores drain first
        // (Intel SDM vol. 3A §8.3). arm64's ERET does not wait for stores.
        if (spec_.arch == Arch::x86) co_await drain_stores();
        if (!p.unmask()) break;
        irq = p.take_pending();
        p.mask();
    }
    --irq_depth_;
    if (polluting) {
        pollution_owed_ = spec_.cpu.irq_pollution.count();
        ++pollutions_;
    }
    profile_.change(saved_label, saved_activity, now());
}

sim::Task<> Cpu::wait_on(sim::Signal& sig) {
    const sim::Wake w = co_await sig.wait();
    // Interrupted: the handler runs, and the caller looks again at what it waits for; the
    // signal may have fired while the handler ran, with nobody waiting on it.
    if (w.interrupted()) co_await take_irq(w.irq);
}

void Cpu::set_idle_state(size_t index) {
    if (index >= spec_.idle.size()) {
        throw std::out_of_range(fmt::format("cpu{}: idle state {} of {}", id_, index, spec_.idle.size()));
    }
    idle_index_ = index;
}

const IdleState* Cpu::idle_state() const {
    return spec_.idle.empty() ? nullptr : &spec_.idle[idle_index_];
}

bool Cpu::wake_polling() {
    if (!polling()) return false;
    idle_wake_.notify_all();
    return true;
}

sim::Task<> Cpu::idle() {
    static const uint32_t idle_label = profile_label("cpuidle");
    const IdleState* st = idle_state();
    const uint32_t saved_label = profile_.label();
    const Activity saved_activity = profile_.activity();
    profile_.change(idle_label, Activity::idle, now());
    in_idle_ = true;
    polling_ = st != nullptr && st->monitors_flags();
    sim::Wake w = co_await idle_wake_.wait();
    in_idle_ = false;
    polling_ = false;
    ++idle_wakeups_;
    if (st != nullptr) co_await stall(st->wake_latency);  // not exit_latency: that is the governor's bound
    profile_.change(saved_label, saved_activity, now());
    if (w.interrupted()) co_await take_irq(w.irq);
}

Cpu::Scope::Scope(Cpu& cpu, uint32_t label, std::optional<Activity> activity)
    : cpu_(cpu), saved_label_(cpu.profile_.label()), saved_activity_(cpu.profile_.activity()) {
    cpu_.profile_.change(label, activity.value_or(saved_activity_), cpu_.now());
    IPISIM_CHECK_HOOK(frame_push(cpu_.id(), label));
}

Cpu::Scope::~Scope() {
    IPISIM_CHECK_HOOK(frame_pop(cpu_.id()));
    cpu_.profile_.change(saved_label_, saved_activity_, cpu_.now());
}

}  // namespace ipisim::hw
