// A simulated CPU: executes the process running on it, takes interrupts, idles in C-states,
// shares its core with an SMT sibling, and accounts where its time goes.
//
// Execution primitives are awaited by the process running on the CPU:
//   co_await cpu.compute(300_ns);        // busy; an IRQ preempts it when IRQs are on
//   cpu.local_irq_disable(); ...; co_await cpu.local_irq_enable();  // pending IRQs run here
//   co_await cpu.stall(50_ns);           // instruction-level latency, never preempted
//   co_await cpu.idle();                 // until an interrupt or a polling wake-up
//
// Interrupts: the interrupt controller calls raise() at delivery time. With IRQs enabled the
// interrupted wait (compute, spin, idle) is detached at once; the CPU runs IRQ entry, EOI, the
// handler registered for the vector, and IRQ exit with IRQs disabled, then handles whatever
// became pending meanwhile, then resumes the interrupted work (a compute finishes late by
// exactly the time spent in interrupts, plus the refill irq_pollution the interrupted code pays
// when it computes again; see take_irq). IRQs disabled = the running process's interrupt mask.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "hw/coherence/store_buffer.h"
#include "hw/cpu/profile.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "sim/signal.h"
#include "sim/task.h"

namespace ipisim::hw {

class Cpu {
public:
    using IrqHandler = std::function<sim::Task<>(Cpu&, const sim::Interrupt&)>;

    Cpu(sim::Engine& eng, CpuId id, const MachineSpec& spec);
    Cpu(const Cpu&) = delete;
    Cpu& operator=(const Cpu&) = delete;

    [[nodiscard]] CpuId id() const { return id_; }
    [[nodiscard]] sim::Engine& engine() const { return eng_; }
    [[nodiscard]] const CpuSpec& costs() const { return spec_.cpu; }
    [[nodiscard]] const MachineSpec& spec() const { return spec_; }
    [[nodiscard]] sim::Picos now() const { return eng_.now(); }

    // The process executing on this CPU; interrupts raised on the CPU are delivered to it.
    void set_running(sim::Process* p) { running_ = p; }
    [[nodiscard]] sim::Process* running() const { return running_; }

    // Handlers by vector; `name` labels the IRQ time in profiles (e.g. "sysvec_call_function").
    void set_irq_handler(uint32_t vector, std::string_view name, IrqHandler handler);
    // An interrupt arrives at this CPU (called by the interrupt controller at delivery time).
    void raise(const sim::Interrupt& irq);

    // --- execution primitives ---
    // Busy work: `work` at full single-thread speed; slower while the SMT sibling is busy.
    sim::Task<> compute(sim::Picos work);
    sim::Task<> compute_cycles(sim::Cycles cycles) { return compute(spec_.clock.to_time(cycles)); }
    // Instruction-level latency (MMIO, barrier, TLBSYNC): never preempted; an interrupt arriving
    // meanwhile stays pending and is taken at the next interruptible wait.
    sim::Task<> stall(sim::Picos t);
    // The drain of the store buffer that a serializing instruction (MOV to CR3, INVLPG,
    // INVPCID, IRET, WRMSR) or mfence waits for (hw/coherence/store_buffer.h); free when it
    // is empty or the machine has none.
    [[nodiscard]] Fence drain_stores() const { return {store_buffers_, id_}; }
    // Set by hw::Platform (nullptr: `[coherence] store_buffer` is 0).
    void set_store_buffers(StoreBuffers* sb) { store_buffers_ = sb; }
    void local_irq_disable();
    // Re-enables interrupts and runs the ones that became pending.
    sim::Task<> local_irq_enable();
    [[nodiscard]] bool irqs_disabled() const;
    // Handles one interrupt that ended an interruptible wait (Wake.interrupted()).
    sim::Task<> take_irq(sim::Interrupt irq);
    // Interruptible wait on a signal: returns when notified, or after handling an interrupt that
    // arrived meanwhile (when IRQs are on). Callers loop on their condition: a notification
    // given while the handler ran is not kept.
    sim::Task<> wait_on(sim::Signal& sig);

    // Idle: enters the selected C-state until an interrupt (paid with the state's wake latency,
    // then handled) or, in a state that monitors the thread flags (poll loop, MWAIT), a
    // wake_polling() without IPI (then the state's wake latency too).
    sim::Task<> idle();
    void set_idle_state(size_t index);
    [[nodiscard]] const IdleState* idle_state() const;
    // The index in spec().idle of the state set_idle_state() selected.
    [[nodiscard]] size_t idle_index() const { return idle_index_; }
    [[nodiscard]] bool in_idle() const { return in_idle_; }
    // In an idle state that monitors the thread flags right now (poll or mwait:
    // TIF_POLLING_NRFLAG set).
    [[nodiscard]] bool polling() const { return in_idle_ && polling_; }
    // set_nr_if_polling(): wakes a polling idle CPU without an IPI; false if it is not polling.
    bool wake_polling();

    // Work the CPU did not ask for (e.g. RAR microcode) that just occupied it for `t`, ending
    // now: a compute in progress finishes later by t, and so does a stall in progress; a wait
    // for an event (spin, idle) overlapped it and is not delayed.
    // `label` names the work in the profile (the time moves there from the current function).
    void steal(sim::Picos t, uint32_t label);

    // --- SMT ---
    void add_sibling(Cpu* sibling) { siblings_.push_back(sibling); }
    [[nodiscard]] bool busy() const { return busy_; }

    // --- accounting ---
    [[nodiscard]] CpuProfile& profile() { return profile_; }
    [[nodiscard]] const CpuProfile& profile() const { return profile_; }
    [[nodiscard]] uint64_t irqs_taken() const { return irqs_taken_; }
    [[nodiscard]] uint64_t idle_wakeups() const { return idle_wakeups_; }
    // Interrupts (or back-to-back bursts) that left the interrupted code a refill to pay.
    [[nodiscard]] uint64_t pollutions() const { return pollutions_; }

    // RAII: charges time to `label` (and `activity`, if given) until the scope ends.
    class Scope {
    public:
        Scope(Cpu& cpu, uint32_t label, std::optional<Activity> activity);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        Cpu& cpu_;
        uint32_t saved_label_;
        Activity saved_activity_;
    };
    [[nodiscard]] Scope function(uint32_t label, std::optional<Activity> activity = std::nullopt) {
        return Scope(*this, label, activity);
    }
    void set_activity(uint32_t label, Activity activity) { profile_.change(label, activity, now()); }

private:
    struct Handler {
        uint32_t vector = 0;
        uint32_t label = 0;
        IrqHandler fn;
    };
    uint32_t rate_percent() const;
    void set_busy(bool b);
    sim::Process& self() const;
    // Pays pollution_owed_: the interrupted context refilling what the handlers evicted.
    sim::Task<> refill();

    sim::Engine& eng_;
    StoreBuffers* store_buffers_ = nullptr;
    CpuId id_;
    const MachineSpec& spec_;
    sim::Process* running_ = nullptr;
    std::vector<Handler> handlers_;  // the few vectors with a handler (not a 256-entry table)
    std::vector<Cpu*> siblings_;
    sim::Signal replan_;        // a compute in progress re-plans (sibling state change, steal)
    sim::Signal idle_wake_;     // polling wake-up
    uint64_t stolen_ = 0;       // ps of work stolen from the compute in progress
    bool stalling_ = false;     // in stall()
    uint64_t stall_extra_ = 0;  // ps of work stolen from the stall in progress
    bool busy_ = false;
    bool in_idle_ = false;
    bool polling_ = false;
    size_t idle_index_ = 0;
    uint64_t irqs_taken_ = 0;
    uint64_t idle_wakeups_ = 0;
    // Interrupt pollution (take_irq): the context's code ran since the CPU last left idle
    // (warm_ with the idle_wakeups_ count at that time), and the refill it still owes, in ps.
    uint32_t irq_depth_ = 0;
    bool warm_ = false;
    uint64_t warm_wakeups_ = 0;
    uint64_t pollution_owed_ = 0;
    uint64_t pollutions_ = 0;
    CpuProfile profile_;
};

}  // namespace ipisim::hw
