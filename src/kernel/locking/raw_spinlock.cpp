#include "kernel/locking/raw_spinlock.h"

#include "hw/check_hooks.h"
#include "hw/cpu/spin.h"

namespace ipisim::kernel {

namespace {
constexpr uint64_t kLocked = 1;  // _Q_LOCKED_VAL
}  // namespace

RawSpinLock::RawSpinLock(hw::Memory& mem, const std::string& name, uint32_t home_node, hw::LabelCategory category)
    : mem_(mem), val_(&mem.new_aligned_var(name, home_node)), label_(hw::profile_label(name, category)) {}

RawSpinLock::RawSpinLock(hw::Memory& mem, const std::string& name, const std::string& label, uint32_t home_node)
    : mem_(mem), val_(&mem.new_aligned_var(name, home_node)), label_(hw::profile_label(label)) {}

sim::Task<> RawSpinLock::raw_spin_lock(hw::Cpu& cpu) {
    const hw::CpuId me = cpu.id();
    ++stats_.acquisitions;
    const uint64_t fast = co_await mem_.cmpxchg(me, *val_, 0, kLocked);  // queued_spin_lock()
    if (fast == 0) {
        IPISIM_CHECK_HOOK(lock_acquired(me, *val_));
        co_return;
    }
    ++stats_.contended;
    const sim::Picos start = cpu.now();
    auto scope = cpu.function(label_);
    for (;;) {
        // Interruptible: raw_spin_lock() leaves IRQs enabled.
        co_await hw::spin_until(cpu, mem_, *val_, [](uint64_t v) { return v == 0; });
        const uint64_t old = co_await mem_.cmpxchg(me, *val_, 0, kLocked);
        if (old == 0) break;
    }
    stats_.spin += cpu.now() - start;
    IPISIM_CHECK_HOOK(lock_acquired(me, *val_));
}

sim::Task<> RawSpinLock::raw_spin_unlock(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(lock_released(cpu.id(), *val_));
    co_await mem_.store(cpu.id(), *val_, 0);  // smp_store_release(&lock->locked, 0)
}

}  // namespace ipisim::kernel
