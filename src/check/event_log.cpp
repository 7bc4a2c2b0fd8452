#include "check/event_log.h"

#include <fmt/format.h>

#include <algorithm>

#include "hw/coherence/cache_line.h"

namespace ipisim::check {

std::string EventLog::render(size_t max) const {
    const uint64_t n = std::min<uint64_t>({next_, kCapacity, max});
    std::string out;
    for (uint64_t i = next_ - n; i < next_; ++i) {
        const Entry& e = ring_[i % kCapacity];
        const std::string var = e.var != nullptr ? e.var->line().name() : std::string();
        std::string what;
        switch (e.kind) {
            case LogKind::wait_begin:
                what = "wait on " + var;
                break;
            case LogKind::wait_end:
                what = "wait ends";
                break;
            case LogKind::lock_acquired:
                what = "acquires " + var;
                break;
            case LogKind::lock_released:
                what = "releases " + var;
                break;
            case LogKind::csd_locked:
                what = fmt::format("queues CSD {} for cpu{}", var, e.a);
                break;
            case LogKind::csd_unlock:
                what = fmt::format("unlocks CSD {} (flags {:#x})", var, e.a);
                break;
            case LogKind::tlb_hit:
                what = fmt::format("user access mm {} {:#x} through the TLB", e.a, e.b);
                break;
            case LogKind::pte_cleared:
                what = fmt::format("clears PTE mm {} {:#x}", e.a, e.b << 12);
                break;
            case LogKind::pages_released:
                what = fmt::format("releases the pages of mm {} from {:#x}", e.a, e.b);
                break;
            case LogKind::flush_returned:
                what = fmt::format("flush_tlb_mm_range returns (mm {}, from {:#x})", e.a, e.b);
                break;
            case LogKind::rar_payload:
                what = fmt::format("writes RAR payload slot {}", e.a);
                break;
            case LogKind::rar_pending:
                what = fmt::format("sets cpu{}'s RAR action byte of slot {} PENDING", e.a, e.b);
                break;
            case LogKind::rar_done:
                what = fmt::format("RAR microcode: slot {} SUCCESS", e.a);
                break;
            case LogKind::invlpgb:
                what = e.a != 0 ? "INVLPGB of every PCID" : "INVLPGB";
                break;
            case LogKind::tlbsync:
                what = "TLBSYNC returns";
                break;
            case LogKind::asid_assigned:
                what = fmt::format("gives global ASID {} to an mm", e.a);
                break;
            case LogKind::asid_freed:
                what = fmt::format("frees global ASID {}", e.a);
                break;
            case LogKind::asid_reset:
                what = e.a == 0 ? "reset_global_asid_space begins" : "reset_global_asid_space ends";
                break;
        }
        out += fmt::format("{:>14}  cpu{:<3} {}\n", sim::to_string(e.t), e.cpu, what);
    }
    return out;
}

}  // namespace ipisim::check
