#include "support/test_machine.h"

#include <fmt/format.h>

#include "config/table.h"
#include "support/paths.h"

namespace ipisim::test {

hw::MachineSpec load_test_machine(const std::string& name, const std::vector<std::string>& overrides) {
    config::Document doc = config::Document::load(source_path(fmt::format("machines/{}.toml", name)));
    for (const std::string& o : overrides) doc.apply_override(o);
    return hw::load_machine(doc, name);
}

}  // namespace ipisim::test
