#include "kernel/mm/spinlock.h"

#include <fmt/format.h>

#include "hw/check_hooks.h"

namespace ipisim::kernel::mm {

namespace {
constexpr uint64_t kLockedByte = 0xff;         // _Q_LOCKED_MASK
constexpr uint64_t kTail = uint64_t{1} << 16;  // a queue is present (_Q_TAIL_MASK, as one bit)
}  // namespace

SpinLock::SpinLock(hw::Memory& mem, const std::string& name, uint32_t home_node, uint32_t nr_cpus)
    : mem_(mem), val_(&mem.new_aligned_var(name, home_node)), label_(hw::profile_label(name)) {
    node_.reserve(nr_cpus);
    for (hw::CpuId c = 0; c < nr_cpus; ++c) {
        node_.push_back(&mem.new_aligned_var(fmt::format("{}.qnode[{}]", name, c), home_node));
    }
}

SpinLock::SpinLock(hw::Memory& mem, hw::SimVar& word, const std::string& name, uint32_t home_node)
    : mem_(mem), val_(&word), name_(name), home_node_(home_node), label_(hw::profile_label(name)) {}

hw::SimVar& SpinLock::node(hw::CpuId cpu) {
    if (cpu >= node_.size()) node_.resize(cpu + 1, nullptr);
    if (node_[cpu] == nullptr) node_[cpu] = &mem_.new_aligned_var(fmt::format("{}.qnode[{}]", name_, cpu), home_node_);
    return *node_[cpu];
}

sim::Task<> SpinLock::lock(hw::Cpu& cpu) {
    // Lock word: byte 0 the locked byte, bit 16 "MCS tail present" (the tail's place,
    // _Q_TAIL_OFFSET 16).
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
    co_await mem_.fetch_or(me, *val_, kTail);
    if (!head) {
        // Wait for the predecessor's handoff on our own node.
        IPISIM_CHECK_HOOK(lock_queued(me, node(me), *val_));
        IPISIM_CHECK_HOOK(wait_begin(me, node(me)));
        co_await mem_.wait_until(me, node(me), [](uint64_t v) { return v != 0; });
        IPISIM_CHECK_HOOK(wait_end(me));
        co_await mem_.store(me, node(me), 0);
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
        co_await mem_.fetch_and(me, *val_, ~kTail);
    } else {
        co_await mem_.store(me, node(queue_.front()), 1);  // hand the head to the successor
    }
    cpu.set_activity(saved, saved_activity);
    IPISIM_CHECK_HOOK(lock_acquired(me, *val_));
}

sim::Task<> SpinLock::unlock(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(lock_released(cpu.id(), *val_));
    // queued_spin_unlock(): smp_store_release(&lock->locked, 0), a plain store of the locked
    // byte (through the store buffer), which leaves the tail to the queuers' atomics.
    co_await mem_.store_bytes(cpu.id(), *val_, 0, kLockedByte);
}

}  // namespace ipisim::kernel::mm
