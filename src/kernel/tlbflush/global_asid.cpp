// The global ASID allocator of arch/x86/mm/tlb.c: use_global_asid, allocate_global_asid,
// reset_global_asid_space, mm_free_global_asid (docs/mechanisms.md §2.8).
#include "kernel/tlbflush/global_asid.h"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>
#include <utility>

#include "hw/check_hooks.h"
#include "kernel/sched/spinlock.h"

namespace ipisim::kernel {

namespace {
// allocate_global_asid() / mm_free_global_asid() bookkeeping besides the modeled line
// accesses (bit arithmetic, compares). [A]
constexpr uint64_t kAllocateCycles = 20;
}  // namespace

GlobalAsids::GlobalAsids(hw::Memory& mem, hw::Invlpgb& invlpgb, uint32_t nr_dyn_asids, uint32_t max_asid_available)
    : GlobalAsids(
          mem,
          [&invlpgb](hw::Cpu& cpu) -> sim::Task<> {
              // invlpgb_flush_all_nonglobals(): a freshly allocated global ASID has no entries
              // in any TLB.
              co_await invlpgb.invlpgb(cpu, hw::InvlpgbOp::all_nonglobals());
              co_await invlpgb.tlbsync(cpu);
          },
          nr_dyn_asids, max_asid_available) {}

GlobalAsids::GlobalAsids(hw::Memory& mem, ResetFlush reset_flush, uint32_t nr_dyn_asids, uint32_t max_asid_available)
    : mem_(mem), reset_flush_(std::move(reset_flush)), nr_dyn_(nr_dyn_asids), max_(max_asid_available) {
    if (max_ <= nr_dyn_ + 1 || max_ > 4094) {
        throw std::invalid_argument(
            fmt::format("GlobalAsids: MAX_ASID_AVAILABLE {} with {} dynamic ASIDs", max_, nr_dyn_));
    }
    hw::CacheLine& l = mem_.new_line("global_asid_lock", 0);
    lock_ = &mem_.new_var(l, 0);
    last_ = &mem_.new_var(l, max_);                     // the first allocation resets
    available_ = &mem_.new_var(l, max_ - nr_dyn_ - 1);  // MAX - TLB_NR_DYN_ASIDS - 1
    const uint32_t words = (max_ + 63) / 64;
    hw::CacheLine* used_line = nullptr;
    hw::CacheLine* freed_line = nullptr;
    for (uint32_t w = 0; w < words; ++w) {
        if (w % 8 == 0) {
            used_line = &mem_.new_line(fmt::format("global_asid_used.{}", w / 8), 0);
            freed_line = &mem_.new_line(fmt::format("global_asid_freed.{}", w / 8), 0);
        }
        used_.push_back(&mem_.new_var(*used_line, 0));
        freed_.push_back(&mem_.new_var(*freed_line, 0));
    }
}

void GlobalAsids::set_max_asid_available(uint32_t max) {
    if (stats_.allocations != 0 || stats_.resets != 0) {
        throw std::logic_error("GlobalAsids: MAX_ASID_AVAILABLE changed after an allocation");
    }
    if (max <= nr_dyn_ + 1 || max > max_) {
        throw std::logic_error(
            fmt::format("GlobalAsids: MAX_ASID_AVAILABLE {} with {} dynamic ASIDs, at most {}", max, nr_dyn_, max_));
    }
    max_ = max;
    last_->poke(max_);                     // the first allocation resets
    available_->poke(max_ - nr_dyn_ - 1);  // MAX - TLB_NR_DYN_ASIDS - 1
}

sim::Task<> GlobalAsids::lock_irqsave(hw::Cpu& cpu, bool& irqs_were_on) {
    irqs_were_on = !cpu.irqs_disabled();
    if (irqs_were_on) cpu.local_irq_disable();
    co_await raw_spin_lock(cpu, mem_, *lock_);
}

sim::Task<> GlobalAsids::unlock_irqrestore(hw::Cpu& cpu, bool irqs_were_on) {
    co_await raw_spin_unlock(cpu, mem_, *lock_);
    if (irqs_were_on) co_await cpu.local_irq_enable();
}

sim::Task<uint64_t> GlobalAsids::find_next_zero_bit(hw::Cpu& cpu, uint64_t from) {
    for (uint64_t w = from / 64; w < used_.size(); ++w) {
        uint64_t bits = co_await mem_.load(cpu.id(), *used_[w]);
        if (w == from / 64) bits |= (1ULL << (from % 64)) - 1;  // ignore bits below `from`
        if (bits != ~0ULL) {
            const uint64_t bit = w * 64 + static_cast<uint64_t>(std::countr_one(bits));
            co_return bit < max_ ? bit : max_;
        }
    }
    co_return max_;
}

sim::Task<> GlobalAsids::reset_global_asid_space(hw::Cpu& cpu) {
    ++stats_.resets;
    IPISIM_CHECK_HOOK(global_asid_reset_begin(cpu.id()));
    co_await reset_flush_(cpu);
    // bitmap_andnot(used, used, freed); bitmap_clear(freed): freed ASIDs are reusable now.
    for (size_t w = 0; w < used_.size(); ++w) {
        const uint64_t used = co_await mem_.load(cpu.id(), *used_[w]);
        const uint64_t freed = co_await mem_.load(cpu.id(), *freed_[w]);
        co_await mem_.store(cpu.id(), *used_[w], used & ~freed);
        co_await mem_.store(cpu.id(), *freed_[w], 0);
    }
    co_await mem_.store(cpu.id(), *last_, nr_dyn_);  // restart from the start of the space
    IPISIM_CHECK_HOOK(global_asid_reset_end(cpu.id()));
}

sim::Task<uint64_t> GlobalAsids::allocate_global_asid(hw::Cpu& cpu) {
    co_await cpu.compute_cycles(sim::Cycles(kAllocateCycles));
    uint64_t last = co_await mem_.load(cpu.id(), *last_);
    if (last >= max_ - 1) {  // the previous allocation hit the edge of the space
        co_await reset_global_asid_space(cpu);
        last = nr_dyn_;
    }
    uint64_t asid = co_await find_next_zero_bit(cpu, last);
    const uint64_t available = co_await mem_.load(cpu.id(), *available_);
    if (asid >= max_ && available == 0) co_return 0;  // "Unable to allocate global ASID"
    if (asid >= max_) {
        // Freed ASIDs below the cursor, none above: the kernel would index past the bitmap
        // (docs/mechanisms.md §2.8 item 3). Reset and search again.
        co_await reset_global_asid_space(cpu);
        asid = co_await find_next_zero_bit(cpu, nr_dyn_);
        if (asid >= max_) co_return 0;
    }
    co_await mem_.set_bit(cpu.id(), *used_[asid / 64], static_cast<unsigned>(asid % 64));  // __set_bit
    co_await mem_.store(cpu.id(), *last_, asid);
    co_await mem_.store(cpu.id(), *available_, available - 1);
    ++stats_.allocations;
    co_return asid;
}

sim::Task<> GlobalAsids::use_global_asid(hw::Cpu& cpu, mm::MmStruct& mm) {
    bool irqs_were_on = false;
    co_await lock_irqsave(cpu, irqs_were_on);
    const uint64_t current = co_await mem_.load(cpu.id(), *mm.global_asid);
    const uint64_t available = co_await mem_.load(cpu.id(), *available_);
    if (current == 0 && available == 0) ++stats_.exhausted;  // "Ran out of global ASIDs"
    if (current == 0 && available != 0) {
        const uint64_t asid = co_await allocate_global_asid(cpu);
        if (asid != 0) {
            // mm_assign_global_asid(): finish_asid_transition() must see asid_transition once
            // it sees global_asid.
            co_await mem_.store(cpu.id(), *mm.asid_transition, 1);
            co_await mem_.store(cpu.id(), *mm.global_asid, asid);  // smp_store_release
            IPISIM_CHECK_HOOK(global_asid_assigned(cpu.id(), asid));
        }
    }
    co_await unlock_irqrestore(cpu, irqs_were_on);
}

sim::Task<> GlobalAsids::mm_free_global_asid(hw::Cpu& cpu, mm::MmStruct& mm) {
    const uint64_t asid = co_await mem_.load(cpu.id(), *mm.global_asid);
    if (asid == 0) co_return;
    bool irqs_were_on = false;
    co_await lock_irqsave(cpu, irqs_were_on);
    co_await cpu.compute_cycles(sim::Cycles(kAllocateCycles));
    // The global ASID can be reused only after the flush at wrap-around.
    co_await mem_.set_bit(cpu.id(), *freed_[asid / 64], static_cast<unsigned>(asid % 64));
    co_await mem_.store(cpu.id(), *mm.global_asid, 0);
    IPISIM_CHECK_HOOK(global_asid_freed(cpu.id(), asid));
    const uint64_t available = co_await mem_.load(cpu.id(), *available_);
    co_await mem_.store(cpu.id(), *available_, available + 1);
    ++stats_.frees;
    co_await unlock_irqrestore(cpu, irqs_were_on);
}

}  // namespace ipisim::kernel
