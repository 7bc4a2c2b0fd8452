// `--set key=value` replaces a value of the same kind or adds a key the schema then checks;
// errors about an overridden value name "--set" rather than a line of the file.
#include <gtest/gtest.h>

#include "config/table.h"

namespace ipisim::config {
namespace {

using namespace sim::literals;

template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

Document sample() {
    return Document::parse("[params]\ncpus = 4\nratio = 0.5\ndelay = \"1 ns\"\nname = \"x\"\n", "e.toml");
}

TEST(Override, a_value_of_the_same_type_replaces_the_old_one) {
    Document doc = sample();
    doc.apply_override("params.cpus=8");
    doc.apply_override("params.ratio = 2");
    doc.apply_override("params.delay=5 us");
    doc.apply_override("params.name=\"quoted\"");
    Table params = doc.root().table("params");
    EXPECT_EQ(params.get<int>("cpus"), 8);
    EXPECT_DOUBLE_EQ(params.get<double>("ratio"), 2.0);
    EXPECT_EQ(params.duration("delay"), 5_us);
    EXPECT_EQ(params.get<std::string>("name"), "quoted");
}

TEST(Override, a_bare_word_is_taken_as_a_string) {
    Document doc = sample();
    doc.apply_override("params.name=ipi_ping");
    EXPECT_EQ(doc.root().table("params").get<std::string>("name"), "ipi_ping");
}

TEST(Override, arrays_can_be_set) {
    Document doc = Document::parse("[sweep]\ncpus = [1]\n", "e.toml");
    doc.apply_override("sweep.cpus=[2, 4, 8]");
    EXPECT_EQ(doc.root().table("sweep").array<int>("cpus"), (std::vector<int>{2, 4, 8}));
}

TEST(Override, a_value_of_another_type_is_rejected) {
    Document doc = sample();
    EXPECT_EQ(error_of([&] { doc.apply_override("params.cpus=four"); }),
              "--set: params.cpus: expected an integer like the value it replaces, got a string");
    EXPECT_EQ(error_of([&] { doc.apply_override("params.delay=5"); }),
              "--set: params.delay: expected a string like the value it replaces, got an integer");
}

// Regression (reliability review S11): "params.cpus=1\n[experiment]\nx=1" parsed the extra
// lines as TOML and dropped them silently.
TEST(Override, a_value_with_a_newline_is_rejected_instead_of_adding_other_keys) {
    Document doc = sample();
    EXPECT_EQ(error_of([&] { doc.apply_override("params.cpus=1\n[experiment]\nx=1"); }),
              "--set: params.cpus: the value must be on one line");
    EXPECT_EQ(error_of([&] { doc.apply_override("params.name=a\rb"); }),
              "--set: params.name: the value must be on one line");
}

// Regression (reliability review S07, S12): a broken array or an integer beyond 64 bits fell back
// to a string, and the message said "got a string".
TEST(Override, a_value_that_can_only_be_toml_reports_its_toml_error) {
    Document doc = sample();
    EXPECT_EQ(error_of([&] { doc.apply_override("params.cpus=[1,2"); }),
              "--set: params.cpus: Error while parsing array: encountered end-of-file");
    EXPECT_EQ(error_of([&] { doc.apply_override("params.cpus=99999999999999999999"); }),
              "--set: params.cpus: Error while parsing decimal integer: '99999999999999999999' is not "
              "representable in 64 bits");
    // A duration with its unit is not TOML, and still reads as the string it replaces.
    doc.apply_override("params.delay=5 us");
    EXPECT_EQ(doc.root().table("params").duration("delay"), 5_us);
}

TEST(Override, an_assignment_without_equals_is_rejected) {
    Document doc = sample();
    EXPECT_EQ(error_of([&] { doc.apply_override("params.cpus"); }), "--set: params.cpus: expected key=value");
    EXPECT_EQ(error_of([&] { doc.apply_override("=3"); }), "--set: =3: expected key=value");
    EXPECT_EQ(error_of([&] { doc.apply_override("params..cpus=3"); }), "--set: params..cpus: empty key component");
}

TEST(Override, a_path_through_a_value_is_rejected) {
    Document doc = sample();
    EXPECT_EQ(error_of([&] { doc.apply_override("params.cpus.x=3"); }), "--set: params.cpus.x: cpus is not a table");
}

TEST(Override, an_unknown_key_it_adds_is_reported_by_finish_as_from_set) {
    Document doc = sample();
    doc.apply_override("params.colour=3");
    Table params = doc.root().table("params");
    for (const char* k : {"cpus", "ratio", "delay", "name"}) params.mark_used(k);
    EXPECT_EQ(error_of([&] { params.finish(); }), "--set: params.colour: unknown key");
}

TEST(Override, an_unknown_table_it_adds_is_reported_as_from_set) {
    Document doc = sample();
    doc.apply_override("parms.cpus=3");
    Table root = doc.root();
    root.table("params");
    EXPECT_EQ(error_of([&] { root.finish(); }), "--set: parms: unknown key (did you mean params?)");
}

TEST(Override, a_bad_unit_in_an_overridden_value_names_set) {
    Document doc = sample();
    doc.apply_override("params.delay=5 parsecs");
    EXPECT_EQ(error_of([&] { doc.root().table("params").duration("delay"); }),
              "--set: params.delay: unknown duration unit \"parsecs\" (use ps, ns, us, ms or s)");
}

TEST(Override, values_it_adds_come_after_the_file_keys) {
    Document doc = Document::parse("[sweep]\nb = [1]\n", "e.toml");
    doc.apply_override("sweep.a=[2]");
    EXPECT_EQ(doc.root().table("sweep").keys(), (std::vector<std::string>{"b", "a"}));
}

// A cost of an array of tables is named idle[3].wake_latency by machine show, sensitivity and
// --uncertainty; --set took that name as a new table "idle[3]" and reported "unknown key".
Document with_states() {
    return Document::parse(
        "[[idle]]\nname = \"POLL\"\nwake = { value = \"0 ns\", mark = \"P\" }\n"
        "[[idle]]\nname = \"C1\"\nwake = { value = \"1 us\", mark = \"A\" }\n",
        "m.toml");
}

TEST(Override, an_element_of_an_array_of_tables_is_named_by_its_index) {
    Document doc = with_states();
    doc.apply_override("idle[1].wake=500 ns");
    doc.apply_override("idle[0].name=POLL2");
    std::vector<Table> states = doc.root().table_array("idle");
    ASSERT_EQ(states.size(), 2U);
    EXPECT_EQ(states[1].table("wake").duration("value"), 500_ns);
    EXPECT_EQ(states[1].table("wake").get<std::string>("mark"), "A");  // the mark stays
    EXPECT_EQ(states[0].get<std::string>("name"), "POLL2");
    EXPECT_EQ(states[0].table("wake").duration("value"), 0_ns);
}

TEST(Override, an_index_past_the_array_or_a_malformed_one_is_rejected) {
    Document doc = with_states();
    EXPECT_EQ(error_of([&] { doc.apply_override("idle[2].wake=1 us"); }),
              "--set: idle[2].wake: idle[2]: idle has 2 elements (0..1)");
    EXPECT_EQ(error_of([&] { doc.apply_override("idle[x].wake=1 us"); }),
              "--set: idle[x].wake: idle[x]: expected name[index] with a whole-number index");
    EXPECT_EQ(error_of([&] { doc.apply_override("idle[-1].wake=1 us"); }),
              "--set: idle[-1].wake: idle[-1]: expected name[index] with a whole-number index");
    EXPECT_EQ(error_of([&] { doc.apply_override("idle[1=1 us"); }),
              "--set: idle[1: idle[1: expected name[index] with a whole-number index");
    EXPECT_EQ(error_of([&] { doc.apply_override("states[0].wake=1 us"); }),
              "--set: states[0].wake: states: no such array");
    EXPECT_EQ(error_of([&] { doc.apply_override("idle[0].name[0].x=1"); }),
              "--set: idle[0].name[0].x: name is not an array");
    EXPECT_EQ(error_of([&] { doc.apply_override("idle[1]=1"); }),
              "--set: idle[1]: idle[1]: an element is set one key at a time (idle[1].KEY=VALUE)");
}

// A check across keys of a marked cost that --set replaced names "--set", not the file's line.
TEST(Override, a_failed_check_on_a_replaced_cost_names_set) {
    Document doc = with_states();
    doc.apply_override("idle[1].wake=2 us");
    Table c1 = doc.root().table_array("idle")[1];
    EXPECT_EQ(error_of([&] { c1.fail("wake", "too long"); }), "--set: idle[1].wake: too long");
    Document file = with_states();
    Table c1_file = file.root().table_array("idle")[1];
    EXPECT_EQ(error_of([&] { c1_file.fail("wake", "too long"); }), "m.toml:6: idle[1].wake: too long");
}

}  // namespace
}  // namespace ipisim::config
