#include "check/contracts.h"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/coherence/cache_line.h"
#include "kernel/smp/csd.h"

namespace ipisim::check {

namespace {

Violation contract(hw::CpuId cpu, sim::Picos now, std::string diagnosis) {
    return Violation{.kind = ViolationKind::contract, .cpu = cpu, .time = now, .diagnosis = std::move(diagnosis)};
}

}  // namespace

Contracts::Contracts(uint32_t nr_cpus) : cpus_(nr_cpus), freed_(kMaxAsids) {}

std::optional<Violation> Contracts::csd_unlock(hw::CpuId cpu, const hw::SimVar& flags, uint64_t old_flags,
                                               sim::Picos now) const {
    if ((old_flags & kernel::CSD_FLAG_LOCK) != 0) return std::nullopt;
    return contract(
        cpu, now,
        fmt::format("cpu{} unlocked the CSD on {} (word {}) at {} although it was not locked (flags {:#x}): a CSD "
                    "unlocked twice; its owner may reuse it while a target still runs it, or a csd_lock_wait returns "
                    "early.",
                    cpu, flags.line().name(), flags.offset() / 8, sim::to_string(now), old_flags));
}

std::optional<Violation> Contracts::rar_payload_written(hw::CpuId sender, uint32_t slot, sim::Picos now) const {
    if (slot >= kMaxSlots) throw std::out_of_range(fmt::format("RAR contract: slot {}", slot));
    const SlotState& s = slots_[slot];
    if (s.pending == 0) return std::nullopt;
    return contract(
        sender, now,
        fmt::format("cpu{} rewrote RAR payload slot {} at {} while {} target(s) still had its action byte PENDING "
                    "(the last: cpu{}, set by cpu{} at {}): a payload slot reused while pending. That target's "
                    "microcode will apply the new payload instead of the request it was sent, so the earlier "
                    "sender's invalidation is lost although it freed the slot as if every target had done it.",
                    sender, slot, sim::to_string(now), s.pending, s.last_target, s.last_sender,
                    sim::to_string(s.last_set)));
}

void Contracts::rar_action_pending(hw::CpuId sender, hw::CpuId target, uint32_t slot, sim::Picos now) {
    if (slot >= kMaxSlots) throw std::out_of_range(fmt::format("RAR contract: slot {}", slot));
    SlotState& s = slots_[slot];
    ++s.pending;
    s.last_sender = sender;
    s.last_target = target;
    s.last_set = now;
}

void Contracts::rar_action_done(uint32_t slot) {
    if (slot >= kMaxSlots) throw std::out_of_range(fmt::format("RAR contract: slot {}", slot));
    if (slots_[slot].pending > 0) --slots_[slot].pending;
}

void Contracts::invlpgb_issued(hw::CpuId cpu, bool all_asids, sim::Picos now) {
    CpuState& c = cpus_.at(cpu);
    if (c.invlpgb_outstanding++ == 0) c.first_invlpgb = now;
    c.all_asids_outstanding = c.all_asids_outstanding || all_asids;
}

void Contracts::tlbsync_returned(hw::CpuId cpu) {
    CpuState& c = cpus_.at(cpu);
    if (c.all_asids_outstanding) tlb_flushed_all(cpu);
    c.invlpgb_outstanding = 0;
    c.all_asids_outstanding = false;
}

std::optional<Violation> Contracts::flush_returned(hw::CpuId cpu, sim::Picos now) const {
    const CpuState& c = cpus_.at(cpu);
    if (c.invlpgb_outstanding == 0) return std::nullopt;
    return contract(cpu, now,
                    fmt::format("cpu{}'s flush_tlb_mm_range() returned at {} with {} INVLPGB(s) issued since its last "
                                "TLBSYNC (the first at {}): INVLPGB without a TLBSYNC before return. INVLPGB is "
                                "asynchronous; until TLBSYNC the invalidation may not have reached every CPU, yet "
                                "the caller now frees the pages.",
                                cpu, sim::to_string(now), c.invlpgb_outstanding, sim::to_string(c.first_invlpgb)));
}

void Contracts::tlb_flushed_all(hw::CpuId cpu) {
    CpuState& c = cpus_.at(cpu);
    if (c.in_reset) c.reset_flushed = true;
}

void Contracts::global_asid_reset_begin(hw::CpuId cpu) {
    CpuState& c = cpus_.at(cpu);
    c.in_reset = true;
    c.reset_flushed = false;
}

void Contracts::global_asid_reset_end(hw::CpuId cpu) {
    CpuState& c = cpus_.at(cpu);
    ++resets_;
    if (c.in_reset && c.reset_flushed) ++flushed_resets_;
    c.in_reset = false;
    c.reset_flushed = false;
}

void Contracts::global_asid_freed(hw::CpuId cpu, uint64_t asid, sim::Picos now) {
    FreedAsid& f = freed_.at(asid);
    f.freed = true;
    f.resets_at_free = flushed_resets_;
    f.cpu = cpu;
    f.time = now;
}

std::optional<Violation> Contracts::global_asid_assigned(hw::CpuId cpu, uint64_t asid, sim::Picos now) {
    FreedAsid& f = freed_.at(asid);
    const FreedAsid was = f;
    f.freed = false;
    if (!was.freed || flushed_resets_ > was.resets_at_free) return std::nullopt;
    return contract(
        cpu, now,
        fmt::format("cpu{} gave global ASID {} to an mm at {}, but it was freed by cpu{} at {} and no "
                    "reset_global_asid_space() has flushed every PCID since ({} reset(s) in the run, {} with the "
                    "flush): a global ASID reused without the wrap flush. TLBs may still hold the old mm's "
                    "translations under that PCID, and the new mm would use them.",
                    cpu, asid, sim::to_string(now), was.cpu, sim::to_string(was.time), resets_, flushed_resets_));
}

}  // namespace ipisim::check
