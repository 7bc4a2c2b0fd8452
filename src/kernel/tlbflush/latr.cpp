// tlb_flush "latr": the design, its rules and why they are safe are in latr.h.
#include "kernel/tlbflush/latr.h"

#include <fmt/format.h>

#include "kernel/costs.h"
#include "kernel/mm/mm.h"
#include "sim/registry.h"

namespace ipisim::kernel {

void LatrFlush::attach(mm::Mm& mm) {
    TlbFlushProtocol::attach(mm);
    hw::Platform& p = mm.platform();
    hw::profile_label("latr_tick", hw::LabelCategory::tlb_invalidation);  // tags the tick handler's label
    pcpu_.resize(p.nr_cpus());
    for (hw::CpuId c = 0; c < p.nr_cpus(); ++c) {
        pcpu_[c].pending = &p.memory().new_aligned_var(fmt::format("latr_pending[{}]", c), p.topology().node_of(c));
        p.cpu(c).set_irq_handler(LATR_TICK_VECTOR, "latr_tick",
                                 [this](hw::Cpu& cpu, const sim::Interrupt&) { return apply(cpu, /*at_tick=*/true); });
    }
}

LatrFlush::State& LatrFlush::new_state(hw::CpuId initiator) {
    PerCpu& pc = pcpu_[initiator];
    if (!pc.free.empty()) {
        State* s = pc.free.back();
        pc.free.pop_back();
        return *s;
    }
    hw::Memory& mem = mm().mem();
    auto s = std::make_unique<State>();
    hw::CacheLine& line = mem.new_line(fmt::format("latr_state[{}]#{}", initiator, states_.size()),
                                       mm().platform().topology().node_of(initiator));
    s->payload = &mem.new_var(line, 0);
    s->count = &mem.new_var(line, 0);
    s->initiator = initiator;
    states_.push_back(std::move(s));
    return *states_.back();
}

sim::Task<> LatrFlush::drop(hw::Cpu& cpu, State& s) {
    const uint64_t left = co_await mm().mem().fetch_add(cpu.id(), *s.count, ~0ULL);
    if (left != 1) co_return;
    if (s.has_release) {
        ++stats_.deferred_releases;
        co_await mm().release_now(cpu, s.release);
    }
    s.has_release = false;
    s.release = mm::TlbRelease{};
    --pcpu_[s.initiator].in_flight;
    pcpu_[s.initiator].free.push_back(&s);
}

void LatrFlush::arm_tick(hw::CpuId cpu) {
    PerCpu& pc = pcpu_[cpu];
    if (pc.tick_armed) return;
    pc.tick_armed = true;
    // The CPU's next scheduler tick (every CPU's at the jiffy boundaries unless skew_tick).
    sim::Engine& eng = mm().platform().engine();
    eng.schedule_at(mm().tick().next_tick(cpu, eng.now()), &LatrFlush::on_tick, this, cpu, cpu);
}

void LatrFlush::on_tick(void* obj, uint32_t cpu) {
    auto* self = static_cast<LatrFlush*>(obj);
    self->pcpu_[cpu].tick_armed = false;
    ++self->stats_.ticks;
    self->mm().platform().cpu(cpu).raise(sim::Interrupt{LATR_TICK_VECTOR, 0});
}

sim::Task<> LatrFlush::apply(hw::Cpu& cpu, bool at_tick) {
    static const uint32_t label = hw::profile_label("latr_apply", hw::LabelCategory::tlb_invalidation);
    PerCpu& pc = pcpu_[cpu.id()];
    if (pc.applying || pc.queue.empty()) co_return;
    auto scope = cpu.function(label);
    pc.applying = true;
    // Takes the whole queue (the count on the line is what the initiators' adds pay for).
    co_await mm().mem().xchg(cpu.id(), *pc.pending, 0);
    std::vector<State*> batch(pc.queue.begin(), pc.queue.end());
    pc.queue.clear();
    const uint64_t n = batch.size();
    co_await cpu.compute_cycles(costs::flush_queue_setup + costs::flush_queue_per_node * n);
    for (State* s : batch) {
        co_await mm().flush_tlb_func(cpu, s->info);  // loads the state's line (info.line)
        ++(at_tick ? stats_.applied_at_tick : stats_.applied_at_switch);
        co_await drop(cpu, *s);
    }
    pc.applying = false;
    if (!pc.queue.empty()) arm_tick(cpu.id());
}

sim::Task<> LatrFlush::switch_mm_done(hw::Cpu& cpu) {
    co_await apply(cpu, /*at_tick=*/false);
}

sim::Task<> LatrFlush::flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) {
    if (info.reason != mm::TlbFlushReason::unmap) {
        ++stats_.ipi_fallbacks;
        co_await mm().native_flush_tlb_multi(self, cpumask, info);
        co_return;
    }
    const hw::CpuId me = self.id();
    PerCpu& mine = pcpu_[me];
    if (mine.current != nullptr) {  // a lazy flush nobody released: drop its reference
        State* old = mine.current;
        mine.current = nullptr;
        co_await drop(self, *old);
    }
    if (mine.in_flight >= kLatrStates) {
        ++stats_.full_fallbacks;
        co_await mm().native_flush_tlb_multi(self, cpumask, info);
        co_return;
    }
    static const uint32_t label = hw::profile_label("latr_flush_tlb_multi", hw::LabelCategory::tlb_invalidation);
    auto scope = self.function(label, hw::Activity::kernel);
    const bool all = co_await ipi_flush_must_reach_all(self, info);
    co_await self.compute_cycles(costs::smp_call_function_many_setup);
    if (cpumask.test(me)) {
        bool run_local = all;
        if (!run_local) run_local = co_await mm().should_flush_tlb(self, me, info);
        if (run_local) {
            self.local_irq_disable();
            co_await mm().flush_tlb_func(self, info);
            co_await self.local_irq_enable();
        }
    }
    std::vector<hw::CpuId> targets;
    for (hw::CpuId c : cpumask.to_vector()) {
        if (c == me) continue;
        co_await self.compute_cycles(costs::smp_call_function_many_per_cpu);
        bool should = all;
        if (!should) should = co_await mm().should_flush_tlb(self, c, info);
        if (should) targets.push_back(c);
    }
    if (targets.empty()) co_return;
    State& s = new_state(me);
    ++mine.in_flight;
    s.info = info;
    s.info.line = s.payload;
    hw::Memory& mem = mm().mem();
    co_await mem.store(me, *s.payload, info.new_tlb_gen);
    co_await mem.store(me, *s.count, targets.size() + 1);
    for (hw::CpuId t : targets) {
        co_await mem.fetch_add(me, *pcpu_[t].pending, 1);
        pcpu_[t].queue.push_back(&s);
        ++stats_.states_queued;
        arm_tick(t);
    }
    ++stats_.lazy_flushes;
    mine.current = &s;
}

sim::Task<bool> LatrFlush::defer_release(hw::Cpu& self, mm::TlbRelease& r) {
    PerCpu& mine = pcpu_[self.id()];
    State* s = mine.current;
    if (s == nullptr) co_return false;
    mine.current = nullptr;
    // The flush this release follows must be the state's (path (c) returns without one).
    if (s->info.mm != r.mm || s->info.new_tlb_gen != mm().flush_tlb_info(self.id()).new_tlb_gen) {
        co_await drop(self, *s);
        co_return false;
    }
    s->release = std::move(r);
    s->has_release = true;
    co_await drop(self, *s);
    co_return true;
}

namespace {
const sim::Registration<TlbFlushProtocol, LatrFlush> reg(
    "tlb_flush", "latr",
    "LATR lazy shootdown (ASPLOS'18): unmaps queue per-CPU state, applied at each target's next tick "
    "or context switch; memory released after all applied; permission changes by IPI");
}  // namespace

}  // namespace ipisim::kernel
