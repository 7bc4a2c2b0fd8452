#include "kernel/mm/lru.h"

#include <fmt/format.h>

#include <stdexcept>

#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"

namespace ipisim::kernel::mm {

Lru::Lru(Mm& mm, uint32_t batch_size) : mm_(mm), capacity_(batch_size), batch_(mm.nr_cpus()) {
    if (capacity_ == 0) throw std::invalid_argument("Lru: folio_batch capacity must be at least 1");
    const hw::Topology& topo = mm.platform().topology();
    for (uint32_t node = 0; node < topo.nr_nodes(); ++node) {
        // One lruvec per node (one memcg): its lock line is homed on the node.
        locks_.push_back(
            std::make_unique<SpinLock>(mm.mem(), fmt::format("lruvec[{}].lru_lock", node), node, mm.nr_cpus()));
    }
    for (auto& b : batch_) b.reserve(capacity_);
}

sim::Task<> Lru::lock_irq(hw::Cpu& cpu, SpinLock& lock) {
    cpu.local_irq_disable();  // lruvec_lock_irq / _irqsave
    co_await lock.lock(cpu);
    ++stats_.lock_rounds;
}

sim::Task<> Lru::unlock_irq(hw::Cpu& cpu, SpinLock& lock) {
    co_await lock.unlock(cpu);
    co_await cpu.local_irq_enable();
}

sim::Task<> Lru::folio_add_lru(hw::Cpu& cpu, Folio* folio) {
    co_await cpu.compute_cycles(costs::folio_add_lru);
    ++folio->refcount;  // folio_get(): the batch's reference
    std::vector<Folio*>& b = batch_[cpu.id()];
    b.push_back(folio);
    // folio_batch_add() returns the space left; no space left (or a large folio) moves it.
    if (b.size() == capacity_) co_await folio_batch_move_lru(cpu);
}

sim::Task<> Lru::lru_add_drain(hw::Cpu& cpu) {
    static const uint32_t label = hw::profile_label("lru_add_drain");
    auto scope = cpu.function(label);
    co_await cpu.compute_cycles(costs::lru_add_drain);
    if (!batch_[cpu.id()].empty()) co_await folio_batch_move_lru(cpu);
}

sim::Task<> Lru::folio_batch_move_lru(hw::Cpu& cpu) {
    static const uint32_t label = hw::profile_label("folio_batch_move_lru");
    auto scope = cpu.function(label);
    ++stats_.batch_moves;
    std::vector<Folio*> moving;
    moving.swap(batch_[cpu.id()]);
    batch_[cpu.id()].reserve(capacity_);
    SpinLock& lock = lru_lock(mm_.platform().topology().node_of(cpu.id()));
    co_await lock_irq(cpu, lock);
    {
        auto held = cpu.function(lock.label());
        for (Folio* f : moving) {
            co_await cpu.compute_cycles(costs::lruvec_add_folio);
            f->lru = true;
        }
    }
    co_await unlock_irq(cpu, lock);
    // folios_put(fbatch): drop the batch's references.
    co_await folios_put(cpu, moving);
}

sim::Task<> Lru::folios_put(hw::Cpu& cpu, const std::vector<Folio*>& folios) {
    std::vector<Folio*> to_free;
    for (Folio* f : folios) {
        co_await cpu.compute_cycles(costs::folio_put);
        if (f->zero) continue;
        if (--f->refcount == 0) to_free.push_back(f);
    }
    if (to_free.empty()) co_return;
    // __page_cache_release(): folios on the LRU leave it under the LRU lock, held across the
    // batch (folios_put_refs relocks only when the lruvec changes).
    bool any_lru = false;
    for (Folio* f : to_free) any_lru = any_lru || f->lru;
    if (any_lru) {
        SpinLock& lock = lru_lock(mm_.platform().topology().node_of(cpu.id()));
        co_await lock_irq(cpu, lock);
        {
            auto held = cpu.function(lock.label());
            for (Folio* f : to_free) {
                if (!f->lru) continue;
                co_await cpu.compute_cycles(costs::lruvec_del_folio);
                f->lru = false;
            }
        }
        co_await unlock_irq(cpu, lock);
    }
    // mem_cgroup_uncharge_folios(): one uncharge_batch for the batch (one memcg here).
    co_await mm_.memcg().uncharge_batch(cpu, static_cast<uint32_t>(to_free.size()));
    for (Folio* f : to_free) {
        co_await cpu.compute_cycles(costs::free_unref_folio);
        ++stats_.releases;
        mm_.free_folio(f);
    }
}

}  // namespace ipisim::kernel::mm
