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

TEST(Writer, nested_tables_become_sub_sections_and_inline_tables_stay_inline) {
    Document doc = Document::parse(
        "clock = { value = \"2 GHz\", mark = \"P\" }\n[intc]\nkind = \"gicv3\"\n[intc.params]\nisb = \"10 ns\"\n"
        "[[idle]]\nname = \"WFI\"\n[[idle]]\nname = \"C1\"\n",
        "m.toml");
    const std::string text = to_toml_text(doc.tree());
    EXPECT_EQ(
        text,
        "clock = { value = \"2 GHz\", mark = \"P\" }\n\n[intc]\nkind = \"gicv3\"\n\n[intc.params]\nisb = \"10 ns\"\n\n"
        "[[idle]]\nname = \"WFI\"\n[[idle]]\nname = \"C1\"\n");
    EXPECT_EQ(Document::parse(text, "again.toml").tree(), doc.tree());
}

TEST(Writer, a_marked_value_built_in_memory_is_written_value_first) {
    toml::table marked{{"source", "s"}, {"mark", "A"}, {"value", "1 ns"}};
    marked.is_inline(true);
    toml::table root{{"l1_hit", std::move(marked)}};
    EXPECT_EQ(to_toml_text(root), "l1_hit = { value = \"1 ns\", mark = \"A\", source = \"s\" }\n");
}

}  // namespace
}  // namespace ipisim::config
