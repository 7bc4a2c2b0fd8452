// The window before a violation: a fixed ring of the last hooked events (waits, locks, CSDs,
// PTE changes, releases, flush returns, TLB uses, RAR slots, INVLPGB/TLBSYNC, global ASIDs), rendered as a plain text
// event log (one line per event: time, CPU, event). Recording is a store into the ring: no allocation.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "hw/coherence/sim_var.h"
#include "sim/time.h"

namespace ipisim::check {

enum class LogKind : uint8_t {
    wait_begin,
    wait_end,
    lock_acquired,
    lock_released,
    csd_locked,
    csd_unlock,
    tlb_hit,
    pte_cleared,
    pages_released,
    flush_returned,
    rar_payload,  // a: slot
    rar_pending,  // a: target, b: slot
    rar_done,     // a: slot
    invlpgb,      // a: 1 if of every PCID
    tlbsync,
    asid_assigned,  // a: asid
    asid_freed,     // a: asid
    asid_reset,     // a: 0 begin, 1 end
};

class EventLog {
public:
    static constexpr size_t kCapacity = 256;

    void record(sim::Picos t, hw::CpuId cpu, LogKind kind, uint64_t a = 0, uint64_t b = 0,
                const hw::SimVar* var = nullptr) {
        ring_[next_ % kCapacity] = Entry{t, cpu, kind, a, b, var};
        ++next_;
    }
    // The last `max` events, oldest first.
    [[nodiscard]] std::string render(size_t max = kCapacity) const;
    [[nodiscard]] uint64_t recorded() const { return next_; }

private:
    struct Entry {
        sim::Picos t;
        hw::CpuId cpu = 0;
        LogKind kind = LogKind::wait_begin;
        uint64_t a = 0;
        uint64_t b = 0;
        const hw::SimVar* var = nullptr;
    };
    std::array<Entry, kCapacity> ring_{};
    uint64_t next_ = 0;
};

}  // namespace ipisim::check
