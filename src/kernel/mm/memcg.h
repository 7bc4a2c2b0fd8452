// Memory-cgroup accounting of anonymous pages (mm/memcontrol.c, mm/page_counter.c,
// docs/mechanisms.md §5.4): the charge a fault takes and the uncharge a freeing batch gives
// back, on the page_counter lines of the task's cgroup and of every ancestor up to the root.
//
//   charge (mem_cgroup_charge -> try_charge_memcg): consume_stock() takes the page from the
//     CPU's memcg_stock_pcp when it holds enough (no shared line); otherwise
//     page_counter_try_charge() adds MEMCG_CHARGE_BATCH (64) pages to every level's usage (one
//     atomic on each level's line, shared by every CPU charging below it) and refill_stock()
//     keeps the 63 not needed in the stock.
//   uncharge (folios_put_refs -> mem_cgroup_uncharge_folios -> uncharge_batch): one
//     page_counter_uncharge() of the batch's pages, an atomic subtract on every level's line;
//     the per-CPU stock is not used on this path.
// The depth is [kernel] memcg_depth: levels below the root (0: the task is in the root cgroup,
// which is never charged). With depth d every counted operation touches d + 1 lines (the root's
// counter too: page_counter_cancel walks c->parent up to it).
//
//   MemCgroup memcg(mem, /*depth=*/3, nr_cpus);
//   co_await memcg.charge(cpu, 1);          // in do_anonymous_page
//   co_await memcg.uncharge_batch(cpu, n);  // when a freeing batch frees n folios
#pragma once

#include <cstdint>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"
#include "sim/task.h"

namespace ipisim::kernel::mm {

// include/linux/memcontrol.h
inline constexpr uint32_t MEMCG_CHARGE_BATCH = 64;

struct MemcgStats {
    uint64_t charges = 0;          // pages charged
    uint64_t counter_charges = 0;  // page_counter_try_charge() calls (stock empty)
    uint64_t uncharge_batches = 0;
};

class MemCgroup {
public:
    MemCgroup(hw::Memory& mem, uint32_t depth, uint32_t nr_cpus);

    // mem_cgroup_charge() of `nr` pages by the task on `cpu` (its path costs
    // costs::mem_cgroup_charge also at depth 0).
    sim::Task<> charge(hw::Cpu& cpu, uint32_t nr);
    // uncharge_batch() of `nr` freed pages.
    sim::Task<> uncharge_batch(hw::Cpu& cpu, uint32_t nr);

    [[nodiscard]] uint32_t depth() const { return depth_; }
    // The usage of level `level` (0 = the task's cgroup, depth() = the root), in pages.
    [[nodiscard]] int64_t usage(uint32_t level) const;
    [[nodiscard]] uint32_t stock(hw::CpuId c) const { return stock_.at(c); }
    [[nodiscard]] const MemcgStats& stats() const { return stats_; }

private:
    hw::Memory& mem_;
    uint32_t depth_;
    std::vector<hw::SimVar*> usage_;  // page_counter.usage, the task's cgroup first, the root last
    std::vector<uint32_t> stock_;     // memcg_stock_pcp.nr_pages per CPU (owner-only)
    MemcgStats stats_;
};

}  // namespace ipisim::kernel::mm
