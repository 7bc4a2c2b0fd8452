#include "kernel/rar/rar.h"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/cpu/spin.h"
#include "kernel/costs.h"
#include "sim/registry.h"

namespace ipisim::kernel {

using hw::Cpu;
using hw::CpuId;
using hw::CpuMask;

void Rar::attach(hw::Platform& platform, const CpuMask& online, irqchip::Irqchip& ipi) {
    if (platform.rar() == nullptr) {
        throw std::invalid_argument(fmt::format("RAR kernel code on {}, which has no RAR", platform.spec().name));
    }
    p_ = &platform;
    ipi_ = &ipi;
    hw_ = platform.rar();
    online_ = &online;
    nr_slots_ = hw_->nr_payloads();  // rar_max_payloads: min(RAR_MAX_PAYLOADS, RAR_INFO + 1)
    for (uint32_t s = 0; s < nr_slots_; ++s) {
        rar_locks_.push_back(std::make_unique<RawSpinLock>(mem(), fmt::format("rar_locks[{}]", s), 0));
    }
    rar_cpu_mask_.assign(platform.nr_cpus(), CpuMask(platform.nr_cpus()));
    on_attach();
}

uint64_t Rar::rar_pages(uint64_t start, uint64_t end) {
    // Catch the "end - start + PAGE_SIZE" overflow: force a whole-PCID flush.
    if (end == RAR_TLB_FLUSH_ALL) return hw::kRarMaxPages + 1;
    return (end - start + RAR_PAGE_SIZE) / RAR_PAGE_SIZE;
}

void Rar::rar_dest_mask(const CpuMask& mask, CpuMask& dest) const {
    dest = mask;
    dest &= *online_;
}

sim::Task<uint32_t> Rar::get_payload_slot(Cpu& self) {
    const uint32_t slot = payload_slot(self.id());
    RawSpinLock& lock = *rar_locks_[slot];
    const RawSpinLockStats before = lock.stats();
    co_await lock.raw_spin_lock(self);
    stats_.slot_lock_waits += lock.stats().contended - before.contended;
    stats_.slot_lock_spin += lock.stats().spin - before.spin;
    co_return slot;
}

sim::Task<> Rar::free_payload_slot(Cpu& self, uint32_t slot) {
    co_await rar_locks_[slot]->raw_spin_unlock(self);
}

sim::Task<> Rar::set_payload(Cpu& self, uint32_t slot, hw::Pcid pcid, uint64_t start, uint64_t pages) {
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

sim::Task<> Rar::set_action_entry(Cpu& self, uint32_t slot, CpuId target) {
    ++stats_.requests;
    co_await hw_->set_action_pending(self.id(), target, slot);
}

sim::Task<> Rar::native_send_rar_ipi(Cpu& self, const CpuMask& dest) {
    if (dest.empty()) co_return;
    ++stats_.sends;
    stats_.ipis += dest.weight();
    // __apic_send_IPI_mask(): the xAPIC/x2APIC mask senders run with IRQs saved off.
    self.local_irq_disable();
    co_await ipi_->send_IPI_mask(self, dest, RAR_VECTOR, hw::DeliveryMode::rar);
    co_await self.local_irq_enable();
}

sim::Task<uint8_t> Rar::wait_for_action_done(Cpu& self, uint32_t slot, CpuId target) {
    static const uint32_t label = hw::profile_label("wait_for_action_done");
    auto scope = self.function(label);
    const sim::Picos start = self.now();
    const uint64_t word = co_await hw::spin_until(self, mem(), hw_->action_word(target, slot), [slot](uint64_t w) {
        return hw::Rar::action_byte(w, slot) != hw::kRarPending;
    });
    stats_.action_spin += self.now() - start;
    const uint8_t status = hw::Rar::action_byte(word, slot);
    if (status != hw::kRarSuccess) {
        throw std::logic_error(fmt::format("cpu{}: RAR slot {} on cpu{} ended {:#x}", self.id(), slot, target, status));
    }
    co_return status;
}

std::unique_ptr<Rar> make_rar(const std::string& name, hw::Platform& platform, const CpuMask& online,
                              irqchip::Irqchip& ipi) {
    auto r = sim::Registry<Rar>::instance().create(name);
    if (!r) {
        throw std::invalid_argument("unknown RAR variant \"" + name + "\"; registered: " + rar_variant_names());
    }
    r->attach(platform, online, ipi);
    return r;
}

std::string rar_variant_names() {
    return sim::Registry<Rar>::instance().names();
}

}  // namespace ipisim::kernel
