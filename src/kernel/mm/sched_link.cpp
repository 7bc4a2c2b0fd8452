#include "kernel/mm/sched_link.h"

#include <fmt/format.h>

#include <stdexcept>

#include "kernel/mm/mm.h"

namespace ipisim::kernel::mm {

Thread* SchedLink::current_task(hw::CpuId cpu) const {
    const Sched* s = k_.sched_if_made();
    return s != nullptr ? s->current(cpu) : nullptr;
}

sim::Task<> SchedLink::schedule(hw::Cpu& cpu) {
    ++sleeps_;
    co_await k_.sched().schedule(cpu);
}

sim::Task<> SchedLink::wake_up_process(hw::Cpu& self, Thread& t) {
    co_await k_.sched().wake_up_process(self, t);
}

sim::Task<> SchedLink::switch_mm_irqs_off(hw::Cpu& cpu, uint64_t next_mm) {
    MmStruct* next = mm_.mm_by_id(next_mm);
    if (next == nullptr) throw std::logic_error(fmt::format("context switch to unknown mm {}", next_mm));
    co_await mm_.switch_mm_irqs_off(cpu, *next);
}

sim::Task<> SchedLink::enter_lazy_tlb(hw::Cpu& cpu) {
    co_await mm_.enter_lazy_tlb(cpu);
}

}  // namespace ipisim::kernel::mm
