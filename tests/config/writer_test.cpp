// config.toml is written with keys in file order and reads back to the same tree.
#include <gtest/gtest.h>

#include "config/table.h"
#include "config/writer.h"

namespace ipisim::config {
namespace {

const char* kExperiment = R"([experiment]
name = "demo"
workload = "ipi_ping"
seed = 3

[params]
zeta = 1.5
alpha = "1 ns"
flag = true
list = [3, 1, 2]

[sweep]
zeta = [2.0, 1e-5]
alpha = ["1 ns", "2 ns"]

[published]
source = "a \"quoted\" source"

[[published.rows]]
params = { zeta = 2.0 }
metrics = { x = 1 }
)";

TEST(Writer, keys_keep_their_file_order) {
    Document doc = Document::parse(kExperiment, "e.toml");
    EXPECT_EQ(to_toml_text(doc.tree()), R"([experiment]
name = "demo"
workload = "ipi_ping"
seed = 3

[params]
zeta = 1.5
alpha = "1 ns"
flag = true
list = [3, 1, 2]

[sweep]
zeta = [2.0, 1e-05]
alpha = ["1 ns", "2 ns"]

[published]
source = "a \"quoted\" source"

[[published.rows]]
params = { zeta = 2.0 }
metrics = { x = 1 }
)");
}

TEST(Writer, the_text_reads_back_to_the_same_tree) {
    Document doc = Document::parse(kExperiment, "e.toml");
    Document again = Document::parse(to_toml_text(doc.tree()), "again.toml");
    EXPECT_EQ(doc.tree(), again.tree());
}

TEST(Writer, keys_that_are_not_bare_are_quoted) {
    Document doc = Document::parse("[t]\n\"a b\" = 1\n", "e.toml");
    EXPECT_EQ(to_toml_text(doc.tree()), "[t]\n\"a b\" = 1\n");
}

}  // namespace
}  // namespace ipisim::config
