// Protocol contracts (docs/checker.md, "Contracts"): rules of the cross-call layer that hold
// whatever the timing.
//   - A CSD is unlocked only while locked: an unlock of a CSD whose flags lack CSD_FLAG_LOCK is
//     a double unlock (the second owner's callback could run twice, or a waiter return early).
#pragma once

#include <optional>

#include "check/violation.h"
#include "hw/coherence/sim_var.h"

namespace ipisim::check {

class Contracts {
public:
    [[nodiscard]] std::optional<Violation> csd_unlock(hw::CpuId cpu, const hw::SimVar& flags, uint64_t old_flags,
                                                      sim::Picos now) const;
};

}  // namespace ipisim::check
