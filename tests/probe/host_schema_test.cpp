// The schema checks of a probe-written host.toml reject what a probe must never write, each
// with FILE:LINE and the dotted key.
#include "probe/host_schema.h"

#include <gtest/gtest.h>

#include "config/error.h"
#include "probe/host_file.h"
#include "sample_results.h"

namespace ipisim::probe {
namespace {

using testing::line_starting;
using testing::replace_line;
using testing::sample_results;

// The error of checking the sample file with one line replaced.
config::ConfigError error_with(const std::string& prefix, const std::string& replacement) {
    const std::string text = replace_line(host_machine_text(sample_results()), prefix, replacement);
    try {
        check_host_file(config::Document::parse(text, "host.toml"));
    } catch (const config::ConfigError& e) {
        return e;
    }
    throw std::runtime_error("no error for: " + replacement);
}

int line_of(const std::string& prefix) {
    return line_starting(host_machine_text(sample_results()), prefix);
}

TEST(ProbeHostSchema, the_generated_file_passes) {
    EXPECT_NO_THROW(check_host_file(config::Document::parse(host_machine_text(sample_results()), "host.toml")));
}

TEST(ProbeHostSchema, a_measured_value_without_its_source_is_an_error) {
    const config::ConfigError e = error_with("syscall = ", "syscall = { mark = 'P', value = '190 ns' }");
    EXPECT_EQ(e.key(), "cpu.syscall.source");
    EXPECT_EQ(e.line(), line_of("syscall = "));
}

TEST(ProbeHostSchema, an_assumption_without_a_range_is_an_error) {
    const config::ConfigError e =
        error_with("irq_entry = ", "irq_entry = { mark = 'A', source = 'x', value = '1 ns' }");
    EXPECT_EQ(e.key(), "cpu.irq_entry.range");
}

TEST(ProbeHostSchema, a_value_outside_its_own_range_is_an_error) {
    const config::ConfigError e = error_with(
        "syscall = ", "syscall = { mark = 'P', range = [ '1 ns', '2 ns' ], source = 'x', value = '190 ns' }");
    EXPECT_EQ(e.key(), "cpu.syscall");
    EXPECT_NE(e.problem().find("outside its own range"), std::string::npos);
}

TEST(ProbeHostSchema, an_unmarked_cost_is_an_error) {
    const config::ConfigError e = error_with("syscall = ", "syscall = '190 ns'");
    EXPECT_EQ(e.key(), "cpu.syscall");
    EXPECT_EQ(e.line(), line_of("syscall = "));
    EXPECT_NE(e.problem().find("mark"), std::string::npos);
}

TEST(ProbeHostSchema, a_send_cost_of_another_interrupt_controller_is_an_error) {
    const config::ConfigError e = error_with("kind = ", "kind = 'xapic_mmio'");
    // The machine schema reads [intc.params] with the named controller's own declaration: the
    // x2APIC file lacks the xAPIC's ICR read cost.
    EXPECT_EQ(e.key(), "intc.params.icr_read") << e.what();
    EXPECT_NE(e.problem().find("required"), std::string::npos) << e.what();
}

TEST(ProbeHostSchema, an_unknown_key_is_an_error) {
    const config::ConfigError e = error_with("[cpu]", "[cpu]\nbogus = 1");
    EXPECT_EQ(e.key(), "cpu.bogus");
}

}  // namespace
}  // namespace ipisim::probe
