// Test support: a shipped machine file (machines/NAME.toml) loaded for a test, optionally with
// "--set"-style overrides ("coherence.same_l3=70 ns"), applied as `ipisim --set machine.KEY=V`.
#pragma once

#include <string>
#include <vector>

#include "config/table.h"
#include "hw/machine.h"

namespace ipisim::test {

inline hw::MachineSpec load_test_machine(const std::string& name, const std::vector<std::string>& overrides = {}) {
    config::Document doc = config::Document::load(std::string(IPISIM_SOURCE_DIR) + "/machines/" + name + ".toml");
    for (const std::string& o : overrides) doc.apply_override(o);
    return hw::load_machine(doc, name);
}

}  // namespace ipisim::test
