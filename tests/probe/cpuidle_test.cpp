// cpuidle states from a sysfs-like tree: names and declared latencies, or why there are none.
#include "probe/cpuidle.h"
#include "support/scratch_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ipisim::probe {
namespace {

namespace fs = std::filesystem;

void put(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text << "\n";
}

fs::path fresh_dir(const std::string& name) {
    const fs::path d = ::ipisim::test::scratch_path(("ipisim-cpuidle-test-" + name));
    fs::remove_all(d);
    return d;
}

TEST(ProbeCpuidle, states_are_read_in_order_with_their_declared_latencies) {
    const fs::path root = fresh_dir("states");
    put(root / "cpuidle" / "current_driver", "intel_idle");
    const fs::path cpu = root / "cpu1" / "cpuidle";
    put(cpu / "state0" / "name", "POLL");
    put(cpu / "state0" / "latency", "0");
    put(cpu / "state0" / "residency", "0");
    put(cpu / "state1" / "name", "C1");
    put(cpu / "state1" / "latency", "2");
    put(cpu / "state1" / "residency", "4");
    put(cpu / "state1" / "disable", "1");
    const Cpuidle c = read_cpuidle(1, root.string());
    EXPECT_EQ(c.driver, "intel_idle");
    ASSERT_EQ(c.states.size(), 2U);
    EXPECT_EQ(c.states[0].name, "POLL");
    EXPECT_EQ(c.states[1].name, "C1");
    EXPECT_DOUBLE_EQ(c.states[1].exit_latency_us, 2);
    EXPECT_DOUBLE_EQ(c.states[1].target_residency_us, 4);
    EXPECT_TRUE(c.states[1].disabled);
    EXPECT_FALSE(c.states[0].disabled);
    fs::remove_all(root);
}

TEST(ProbeCpuidle, a_missing_directory_is_reported_with_the_driver_name) {
    const fs::path root = fresh_dir("absent");
    put(root / "cpuidle" / "current_driver", "none");
    const Cpuidle c = read_cpuidle(0, root.string());
    EXPECT_TRUE(c.states.empty());
    EXPECT_NE(c.absent_reason.find("does not exist"), std::string::npos);
    EXPECT_NE(c.absent_reason.find("\"none\""), std::string::npos);
    fs::remove_all(root);
}

TEST(ProbeCpuidle, a_states_description_gives_its_idle_mechanism) {
    const fs::path root = fresh_dir("desc");
    const fs::path cpu = root / "cpu0" / "cpuidle";
    put(cpu / "state0" / "name", "POLL");
    put(cpu / "state0" / "desc", "CPUIDLE CORE POLL IDLE");
    put(cpu / "state1" / "name", "C1");
    put(cpu / "state1" / "desc", "ACPI FFH MWAIT 0x0");
    const Cpuidle c = read_cpuidle(0, root.string());
    ASSERT_EQ(c.states.size(), 2U);
    EXPECT_EQ(c.states[1].desc, "ACPI FFH MWAIT 0x0");
    const hw::Arch x86 = hw::Arch::x86;
    EXPECT_EQ(idle_mechanism(c.states[0], true, x86), hw::IdleMechanism::poll);
    EXPECT_EQ(idle_mechanism(c.states[1], false, x86), hw::IdleMechanism::mwait);
    const auto state = [](const char* name, const char* desc) { return CpuidleState{name, 1, 1, false, desc}; };
    EXPECT_EQ(idle_mechanism(state("C1E", "MWAIT 0x01"), false, x86), hw::IdleMechanism::mwait);  // intel_idle
    EXPECT_EQ(idle_mechanism(state("C2", "ACPI IOPORT 0x814"), false, x86), hw::IdleMechanism::ioport);
    EXPECT_EQ(idle_mechanism(state("C1", "ACPI HLT"), false, x86), hw::IdleMechanism::hlt);
    EXPECT_EQ(idle_mechanism(state("C1", ""), false, x86), hw::IdleMechanism::hlt);    // unknown: interrupt-only
    EXPECT_EQ(idle_mechanism(state("POLL", ""), false, x86), hw::IdleMechanism::hlt);  // poll: first state only
    EXPECT_EQ(idle_mechanism(state("WFI", "ARM WFI"), false, hw::Arch::arm64), hw::IdleMechanism::wfi);
    EXPECT_EQ(idle_mechanism(state("cpu-sleep", "cpu-sleep"), false, hw::Arch::arm64), hw::IdleMechanism::psci);
    fs::remove_all(root);
}

}  // namespace
}  // namespace ipisim::probe
