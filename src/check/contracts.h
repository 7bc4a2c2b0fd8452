// Protocol contracts (docs/checker.md, "Contracts"): rules of the cross-call and flush layers that
// hold whatever the timing. Each hooked event is one O(1) check or update of a fixed-size array.
//   - A CSD is unlocked only while locked: an unlock of a CSD whose flags lack CSD_FLAG_LOCK is
//     a double unlock (the second owner's callback could run twice, or a waiter return early).
//   - A RAR payload slot is rewritten only when no target still has its action byte PENDING:
//     otherwise that target's microcode applies the new payload instead of the request it was
//     sent (docs/mechanisms.md §3.1), and the old request's invalidation is lost.
//   - flush_tlb_mm_range() returns only after a TLBSYNC covering every INVLPGB its CPU issued:
//     INVLPGB is asynchronous, only TLBSYNC waits for it to complete on every CPU (§2.8).
//   - A freed global ASID is given to an mm again only after reset_global_asid_space() flushed
//     every PCID on every CPU (invlpgb_flush_all_nonglobals(), or flush_tlb_all() with RAR):
//     otherwise the new mm inherits the old one's translations (arch/x86/mm/tlb.c,
//     reset_global_asid_space / allocate_global_asid).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "check/violation.h"
#include "hw/coherence/sim_var.h"

namespace ipisim::check {

class Contracts {
public:
    explicit Contracts(uint32_t nr_cpus);

    [[nodiscard]] std::optional<Violation> csd_unlock(hw::CpuId cpu, const hw::SimVar& flags, uint64_t old_flags,
                                                      sim::Picos now) const;

    // RAR payload slots (at most 64).
    [[nodiscard]] std::optional<Violation> rar_payload_written(hw::CpuId sender, uint32_t slot, sim::Picos now) const;
    void rar_action_pending(hw::CpuId sender, hw::CpuId target, uint32_t slot, sim::Picos now);
    void rar_action_done(uint32_t slot);

    // INVLPGB / TLBSYNC.
    void invlpgb_issued(hw::CpuId cpu, bool all_asids, sim::Picos now);
    void tlbsync_returned(hw::CpuId cpu);
    [[nodiscard]] std::optional<Violation> flush_returned(hw::CpuId cpu, sim::Picos now) const;

    // Global ASIDs.
    void tlb_flushed_all(hw::CpuId cpu);
    void global_asid_reset_begin(hw::CpuId cpu);
    void global_asid_reset_end(hw::CpuId cpu);
    void global_asid_freed(hw::CpuId cpu, uint64_t asid, sim::Picos now);
    [[nodiscard]] std::optional<Violation> global_asid_assigned(hw::CpuId cpu, uint64_t asid, sim::Picos now);

private:
    static constexpr uint32_t kMaxSlots = 64;
    static constexpr uint32_t kMaxAsids = 4096;

    struct SlotState {
        uint32_t pending = 0;  // targets whose byte of the slot is PENDING
        hw::CpuId last_sender = 0;
        hw::CpuId last_target = 0;
        sim::Picos last_set;
    };
    struct CpuState {
        uint32_t invlpgb_outstanding = 0;  // INVLPGBs issued since the last TLBSYNC
        bool all_asids_outstanding = false;
        sim::Picos first_invlpgb;
        bool in_reset = false;  // inside reset_global_asid_space()
        bool reset_flushed = false;
    };
    struct FreedAsid {
        bool freed = false;
        uint64_t resets_at_free = 0;  // valid resets when it was freed
        hw::CpuId cpu = 0;
        sim::Picos time;
    };

    std::array<SlotState, kMaxSlots> slots_{};
    std::vector<CpuState> cpus_;
    std::vector<FreedAsid> freed_;
    uint64_t flushed_resets_ = 0;  // resets that flushed every PCID
    uint64_t resets_ = 0;
};

}  // namespace ipisim::check
