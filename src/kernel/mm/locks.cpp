#include "kernel/mm/locks.h"

#include <fmt/format.h>

#include "hw/check_hooks.h"
#include "hw/cpu/spin.h"

namespace ipisim::kernel::mm {

SpinLock::SpinLock(hw::Memory& mem, const std::string& name, uint32_t home_node, uint32_t nr_cpus)
    : mem_(mem), val_(&mem.new_aligned_var(name, home_node)), label_(hw::profile_label(name)) {
    node_.reserve(nr_cpus);
    for (hw::CpuId c = 0; c < nr_cpus; ++c) {
        node_.push_back(&mem.new_aligned_var(fmt::format("{}.qnode[{}]", name, c), home_node));
    }
}

sim::Task<> SpinLock::lock(hw::Cpu& cpu) {
    // Lock word: bit 0 locked byte, bit 1 "MCS tail present".
    const hw::CpuId me = cpu.id();
    ++acquisitions_;
    const uint64_t fast = co_await mem_.cmpxchg(me, *val_, 0, 1);  // queued_spin_lock()
    if (fast == 0) {
        IPISIM_CHECK_HOOK(lock_acquired(me, *val_));
        co_return;
    }
    // queued_spin_lock_slowpath(): join the MCS queue (xchg_tail on the lock word).
    ++contended_;
    const uint32_t saved = cpu.profile().label();
    const hw::Activity saved_activity = cpu.profile().activity();
    cpu.set_activity(label_, hw::Activity::spin);
    const bool head = queue_.empty();
    queue_.push_back(me);
    co_await mem_.fetch_or(me, *val_, 2);
    if (!head) {
        // Wait for the predecessor's handoff on our own node.
        IPISIM_CHECK_HOOK(lock_queued(me, *node_[me], *val_));
        IPISIM_CHECK_HOOK(wait_begin(me, *node_[me]));
        co_await mem_.wait_until(me, *node_[me], [](uint64_t v) { return v != 0; });
        IPISIM_CHECK_HOOK(wait_end(me));
        co_await mem_.store(me, *node_[me], 0);
    }
    // Queue head: spin on the lock word until the locked byte clears, then take it.
    for (;;) {
        IPISIM_CHECK_HOOK(wait_begin(me, *val_));
        const uint64_t v = co_await mem_.wait_until(me, *val_, [](uint64_t x) { return (x & 1) == 0; });
        IPISIM_CHECK_HOOK(wait_end(me));
        const uint64_t old = co_await mem_.cmpxchg(me, *val_, v, v | 1);
        if (old == v) break;
    }
    queue_.pop_front();
    if (queue_.empty()) {
        co_await mem_.fetch_and(me, *val_, ~uint64_t{2});
    } else {
        co_await mem_.store(me, *node_[queue_.front()], 1);  // hand the head to the successor
    }
    cpu.set_activity(saved, saved_activity);
    IPISIM_CHECK_HOOK(lock_acquired(me, *val_));
}

sim::Task<> SpinLock::unlock(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(lock_released(cpu.id(), *val_));
    co_await mem_.fetch_and(cpu.id(), *val_, ~uint64_t{1});  // clear the locked byte
}

RwSem::RwSem(hw::Memory& mem, const std::string& name, uint32_t home_node)
    : mem_(mem), count_(&mem.new_aligned_var(name, home_node)), label_(hw::profile_label(name)) {}

sim::Task<> RwSem::down_read(hw::Cpu& cpu) {
    const hw::CpuId me = cpu.id();
    constexpr uint64_t kReadFailed = WRITER_LOCKED | FLAG_WAITERS;
    for (;;) {
        const uint64_t old = co_await mem_.fetch_add(me, *count_, READER_BIAS);
        if ((old & kReadFailed) == 0) {
            IPISIM_CHECK_HOOK(rwsem_acquired(me, *count_, /*write=*/false));
            co_return;
        }
        // rwsem_down_read_slowpath(): back out and wait behind the writer.
        co_await mem_.fetch_add(me, *count_, ~READER_BIAS + 1);
        auto scope = cpu.function(label_);
        co_await hw::spin_until(cpu, mem_, *count_, [](uint64_t v) { return (v & kReadFailed) == 0; });
    }
}

sim::Task<> RwSem::up_read(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(rwsem_released(cpu.id(), *count_, /*write=*/false));
    co_await mem_.fetch_add(cpu.id(), *count_, ~READER_BIAS + 1);
}

sim::Task<> RwSem::down_write(hw::Cpu& cpu) {
    const hw::CpuId me = cpu.id();
    const uint64_t fast = co_await mem_.cmpxchg(me, *count_, 0, WRITER_LOCKED);
    if (fast == 0) {
        IPISIM_CHECK_HOOK(rwsem_acquired(me, *count_, /*write=*/true));
        co_return;
    }
    // rwsem_down_write_slowpath(): announce the waiter, wait for the owners to leave.
    auto scope = cpu.function(label_);
    ++waiting_writers_;
    co_await mem_.fetch_or(me, *count_, FLAG_WAITERS);
    for (;;) {
        const uint64_t v =
            co_await hw::spin_until(cpu, mem_, *count_, [](uint64_t x) { return (x & ~FLAG_WAITERS) == 0; });
        const uint64_t want = WRITER_LOCKED | (waiting_writers_ > 1 ? FLAG_WAITERS : 0);
        const uint64_t old = co_await mem_.cmpxchg(me, *count_, v, want);
        if (old == v) break;
    }
    --waiting_writers_;
    IPISIM_CHECK_HOOK(rwsem_acquired(me, *count_, /*write=*/true));
}

sim::Task<> RwSem::up_write(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(rwsem_released(cpu.id(), *count_, /*write=*/true));
    co_await mem_.fetch_add(cpu.id(), *count_, ~WRITER_LOCKED + 1);
}

sim::Task<> RwSem::downgrade_write(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(rwsem_released(cpu.id(), *count_, /*write=*/true));
    IPISIM_CHECK_HOOK(rwsem_acquired(cpu.id(), *count_, /*write=*/false));
    co_await mem_.fetch_add(cpu.id(), *count_, READER_BIAS - WRITER_LOCKED);
}

}  // namespace ipisim::kernel::mm
