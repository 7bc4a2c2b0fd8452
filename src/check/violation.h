// What a checker monitor reports: the kind of invariant broken, where and when it first was,
// and a one-paragraph diagnosis in the kernel's terms (docs/checker.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hw/topology.h"
#include "sim/time.h"

namespace ipisim::check {

enum class ViolationKind : uint8_t {
    stale_translation,  // a translation used after its page was unmapped and released
    stuck_wait,         // a wait that outlived the machine's bound, or that nothing can end
    deadlock,           // every CPU that could make progress waits, in a wait-for cycle
    contract,           // a protocol contract (CSD unlocked twice, ...)
    no_progress,        // events go on but no CPU retires work for longer than the bound
};
std::string_view to_string(ViolationKind k);

struct Violation {
    ViolationKind kind = ViolationKind::contract;
    hw::CpuId cpu = 0;
    sim::Picos time;
    std::string diagnosis;  // one paragraph
};

}  // namespace ipisim::check
