#include "kernel/mm/memcg.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "kernel/mm/mm_costs.h"

namespace ipisim::kernel::mm {

MemCgroup::MemCgroup(hw::Memory& mem, uint32_t depth, uint32_t nr_cpus) : mem_(mem), depth_(depth), stock_(nr_cpus, 0) {
    if (depth == 0) return;  // the root cgroup is never charged
    for (uint32_t l = 0; l <= depth; ++l) {
        // Each mem_cgroup is its own allocation: its page_counter on its own line. [A] homed on
        // node 0 (cgroups are created long before the benchmark, by whichever CPU).
        usage_.push_back(&mem.new_aligned_var(
            l == depth ? std::string("memcg[root].memory.usage") : fmt::format("memcg[{}].memory.usage", l), 0));
    }
}

sim::Task<> MemCgroup::charge(hw::Cpu& cpu, uint32_t nr) {
    // The charge path (get_mem_cgroup_from_mm, consume_stock or the root check, commit_charge).
    co_await cpu.compute_cycles(costs::mem_cgroup_charge);
    if (depth_ == 0) co_return;  // try_charge: the root cgroup is not charged
    stats_.charges += nr;
    uint32_t& stock = stock_.at(cpu.id());
    if (stock >= nr) {
        stock -= nr;
        co_return;
    }
    // page_counter_try_charge(&memcg->memory, batch): every level up to the root.
    const uint32_t batch = std::max(MEMCG_CHARGE_BATCH, nr);
    ++stats_.counter_charges;
    for (hw::SimVar* u : usage_) {
        co_await mem_.fetch_add(cpu.id(), *u, batch);
        co_await cpu.compute_cycles(costs::page_counter_level);
    }
    stock += batch - nr;  // refill_stock()
}

sim::Task<> MemCgroup::uncharge_batch(hw::Cpu& cpu, uint32_t nr) {
    if (depth_ == 0 || nr == 0) co_return;
    ++stats_.uncharge_batches;
    // page_counter_uncharge() -> page_counter_cancel() on every level.
    for (hw::SimVar* u : usage_) {
        co_await mem_.fetch_add(cpu.id(), *u, ~uint64_t{nr} + 1);
        co_await cpu.compute_cycles(costs::page_counter_level);
    }
}

int64_t MemCgroup::usage(uint32_t level) const {
    return static_cast<int64_t>(usage_.at(level)->peek());
}

}  // namespace ipisim::kernel::mm
