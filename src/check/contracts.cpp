#include "check/contracts.h"

#include <fmt/format.h>

#include "hw/coherence/cache_line.h"
#include "kernel/smp/csd.h"

namespace ipisim::check {

std::optional<Violation> Contracts::csd_unlock(hw::CpuId cpu, const hw::SimVar& flags, uint64_t old_flags,
                                               sim::Picos now) const {
    if ((old_flags & kernel::CSD_FLAG_LOCK) != 0) return std::nullopt;
    Violation v;
    v.kind = ViolationKind::contract;
    v.cpu = cpu;
    v.time = now;
    v.diagnosis = fmt::format(
        "cpu{} unlocked the CSD on {} (word {}) at {} although it was not locked (flags {:#x}): a CSD unlocked "
        "twice; its owner may reuse it while a target still runs it, or a csd_lock_wait returns early.",
        cpu, flags.line().name(), flags.offset() / 8, sim::to_string(now), old_flags);
    return v;
}

}  // namespace ipisim::check
