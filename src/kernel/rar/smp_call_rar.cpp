#include "kernel/rar/smp_call_rar.h"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/cpu/spin.h"
#include "hw/observer.h"
#include "kernel/costs.h"

namespace ipisim::kernel {

using hw::Cpu;
using hw::CpuId;
using hw::CpuMask;

void RarPlacement::order_targets(CpuId /*self*/, const CpuMask& dest, std::vector<CpuId>& order) const {
    dest.for_each([&order](CpuId c) { order.push_back(c); });
}

std::unique_ptr<RarPlacement> cpu_number_placement() {
    return std::make_unique<RarPlacement>();
}

SmpCallRar::SmpCallRar(hw::Platform& platform, const CpuMask& online, irqchip::Irqchip& ipi, const RarVariant& variant)
    : p_(platform), ipi_(ipi), hw_(platform.rar()), online_(online), nr_slots_(0) {
    if (hw_ == nullptr) {
        throw std::invalid_argument(fmt::format("RAR kernel code on {}, which has no RAR", platform.spec().name));
    }
    nr_slots_ = hw_->nr_payloads();  // rar_max_payloads: min(RAR_MAX_PAYLOADS, RAR_INFO + 1)
    for (uint32_t s = 0; s < nr_slots_; ++s) {
        rar_locks_.push_back(std::make_unique<RawSpinLock>(mem(), fmt::format("rar_locks[{}]", s), 0,
                                                           hw::LabelCategory::tlb_invalidation));
    }
    const uint32_t n = platform.nr_cpus();
    rar_cpu_mask_.assign(n, CpuMask(n));
    rar_order_.resize(n);
    wait_predictor_.resize(n);
    placement_ = variant.placement();
    placement_->attach(platform.topology(), nr_slots_);
    for (CpuId c = 0; c < n; ++c) {
        if (placement_->payload_slot(c) >= nr_slots_) {
            throw std::logic_error(
                fmt::format("RAR placement: cpu{} given slot {} of {}", c, placement_->payload_slot(c), nr_slots_));
        }
    }
    send_ = variant.send();
    send_->attach(*this);
}

sim::Task<> SmpCallRar::smp_call_rar_many(Cpu& self, const CpuMask& mask, hw::Pcid pcid, uint64_t start, uint64_t end) {
    static const uint32_t label = hw::profile_label("smp_call_rar_many", hw::LabelCategory::tlb_invalidation);
    auto scope = self.function(label, hw::Activity::kernel);
    const uint64_t pages = rar_pages(start, end);
    co_await self.compute_cycles(costs::smp_call_rar_many);

    CpuMask& dest_mask = rar_cpu_mask_[self.id()];
    dest_mask = mask;
    dest_mask &= online_;
    // Some callers race with other CPUs changing the passed mask.
    if (dest_mask.empty()) co_return;
    ++stats_.calls;

    const uint32_t payload_nr = co_await get_payload_slot(self);
    co_await set_payload(self, payload_nr, pcid, start, pages);
    std::vector<CpuId>& order = rar_order_[self.id()];
    order.clear();
    placement_->order_targets(self.id(), dest_mask, order);
    if (order.size() != dest_mask.weight()) throw std::logic_error("RAR placement: order is not the destination");
    for (const CpuId cpu : order) co_await set_action_entry(self, payload_nr, cpu);

    co_await send_->send_and_wait(self, payload_nr, dest_mask, order);

    co_await free_payload_slot(self, payload_nr);
}

uint64_t SmpCallRar::rar_pages(uint64_t start, uint64_t end) {
    // Catch the "end - start + PAGE_SIZE" overflow: force a whole-PCID flush.
    if (end == RAR_TLB_FLUSH_ALL) return hw::kRarMaxPages + 1;
    return (end - start + RAR_PAGE_SIZE) / RAR_PAGE_SIZE;
}

sim::Task<uint32_t> SmpCallRar::get_payload_slot(Cpu& self) {
    const uint32_t slot = placement_->payload_slot(self.id());
    RawSpinLock& lock = *rar_locks_[slot];
    const RawSpinLockStats before = lock.stats();
    co_await lock.raw_spin_lock(self);
    stats_.slot_lock_waits += lock.stats().contended - before.contended;
    stats_.slot_lock_spin += lock.stats().spin - before.spin;
    co_return slot;
}

sim::Task<> SmpCallRar::free_payload_slot(Cpu& self, uint32_t slot) {
    co_await rar_locks_[slot]->raw_spin_unlock(self);
}

sim::Task<> SmpCallRar::set_payload(Cpu& self, uint32_t slot, hw::Pcid pcid, uint64_t start, uint64_t pages) {
    hw::RarPayload p;
    p.type = hw::RarType::invpcid;
    p.page_size = hw::PageSize::size_4k;
    p.pcid = pcid;
    p.linear_address = start;
    if (pcid != 0) {
        // RAR invalidation of the mapping of a specific process.
        if (pages < hw::kRarMaxPages) {
            p.num_pages = static_cast<uint8_t>(pages);
            p.subtype = hw::RarSubtype::addr;
        } else {
            p.subtype = hw::RarSubtype::pcid;
        }
    } else {
        // RAR_INVPCID_ADDR excludes global translations: kernel flushes are full flushes.
        p.subtype = hw::RarSubtype::all;
    }
    co_await hw_->write_payload(self.id(), slot, p);  // then smp_wmb(): free on x86
}

sim::Task<> SmpCallRar::set_action_entry(Cpu& self, uint32_t slot, CpuId target) {
    ++stats_.requests;
    co_await hw_->set_action_pending(self.id(), target, slot);
}

sim::Task<> SmpCallRar::native_send_rar_ipi(Cpu& self, const CpuMask& dest) {
    if (dest.empty()) co_return;
    ++stats_.sends;
    stats_.ipis += dest.weight();
    // __apic_send_IPI_mask(): the xAPIC/x2APIC mask senders run with IRQs saved off.
    self.local_irq_disable();
    co_await ipi_.send_IPI_mask(self, dest, RAR_VECTOR, hw::DeliveryMode::rar);
    co_await self.local_irq_enable();
}

sim::Task<uint8_t> SmpCallRar::wait_for_action_done(Cpu& self, uint32_t slot, CpuId target, bool* spun) {
    static const uint32_t label = hw::profile_label("wait_for_action_done", hw::LabelCategory::tlb_invalidation);
    auto scope = self.function(label);
    const sim::Picos start = self.now();
    uint32_t looks = 0;
    const uint64_t word =
        co_await hw::spin_until(self, mem(), hw_->action_word(target, slot), [slot, &looks](uint64_t w) {
            ++looks;
            return hw::Rar::action_byte(w, slot) != hw::kRarPending;
        });
    if (spun != nullptr) *spun = looks > 1;
    stats_.action_spin += self.now() - start;
    hw::record_latency("wait_for_action_done", self.now() - start);
    const uint8_t status = hw::Rar::action_byte(word, slot);
    if (status != hw::kRarSuccess) {
        throw std::logic_error(fmt::format("cpu{}: RAR slot {} on cpu{} ended {:#x}", self.id(), slot, target, status));
    }
    co_return status;
}

sim::Task<> SmpCallRar::wait_for_all(Cpu& self, uint32_t slot, const std::vector<CpuId>& order) {
    hw::ReadAhead ahead(
        mem(), self.id(), order.size(),
        [this, slot, &order](size_t i) -> hw::SimVar& { return hw_->action_word(order[i], slot); },
        wait_predictor_[self.id()]);
    for (size_t i = 0; i < order.size(); ++i) {
        ahead.before(i);
        bool spun = false;
        co_await wait_for_action_done(self, slot, order[i], &spun);
        ahead.after(i, spun);
    }
}

}  // namespace ipisim::kernel
