// Test support: a shipped machine file (machines/NAME.toml) loaded for a test, optionally with
// "--set"-style overrides ("coherence.same_l3=70 ns"), applied as `ipisim --set machine.KEY=V`.
#pragma once

#include <string>
#include <vector>

#include "hw/machine.h"

namespace ipisim::test {

hw::MachineSpec load_test_machine(const std::string& name, const std::vector<std::string>& overrides = {});

}  // namespace ipisim::test
