#include "support/test_machine.h"

#include <fmt/format.h>

#include "config/table.h"

namespace ipisim::test {

hw::MachineSpec load_test_machine(const std::string& name, const std::vector<std::string>& overrides) {
    config::Document doc = config::Document::load(fmt::format("{}/machines/{}.toml", IPISIM_SOURCE_DIR, name));
    for (const std::string& o : overrides) doc.apply_override(o);
    return hw::load_machine(doc, name);
}

}  // namespace ipisim::test
