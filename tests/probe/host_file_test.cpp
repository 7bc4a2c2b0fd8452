// host.toml from a probe result: measured values marked P with date, command and spread,
// the rest A with a range and rationale; it passes the schema checks and today's loader.
#include "probe/host_file.h"

#include <gtest/gtest.h>

#include "config/error.h"
#include "hw/machine.h"
#include "probe/host_schema.h"
#include "sample_results.h"

namespace ipisim::probe {
namespace {

using testing::line_starting;
using testing::replace_line;
using testing::sample_results;

config::CostValue cost(const config::CostRecord& costs, const std::string& key) {
    for (const config::CostValue& c : costs) {
        if (c.key == key) return c;
    }
    throw std::runtime_error("no cost " + key);
}

config::CostRecord costs_of(const ProbeResults& r) {
    return check_host_file(config::Document::parse(host_machine_text(r), "host.toml")).costs;
}

TEST(ProbeHostFile, a_measured_transfer_latency_is_marked_p_with_its_median_and_p5_p95_range) {
    const config::CostRecord costs = costs_of(sample_results());
    const config::CostValue c = cost(costs, "coherence.same_l3");
    EXPECT_EQ(c.provenance.mark, config::Mark::P);
    EXPECT_DOUBLE_EQ(c.value, 100'000);  // ps
    ASSERT_TRUE(c.provenance.range.has_value());
    EXPECT_DOUBLE_EQ(c.provenance.range->lo, 99'100);
    EXPECT_DOUBLE_EQ(c.provenance.range->hi, 100'900);
    EXPECT_NE(c.provenance.source.find("2025-01-02T03:04:05Z"), std::string::npos);
    EXPECT_NE(c.provenance.source.find("`ipisim probe --quick`"), std::string::npos);
    EXPECT_NE(c.provenance.source.find("median of 3"), std::string::npos);
    EXPECT_NE(c.provenance.source.find("CAS ping-pong"), std::string::npos);
}

TEST(ProbeHostFile, the_clock_syscall_and_context_switch_are_measured) {
    const config::CostRecord costs = costs_of(sample_results());
    EXPECT_EQ(cost(costs, "clock").provenance.mark, config::Mark::P);
    EXPECT_DOUBLE_EQ(cost(costs, "clock").value, 3'100'000);  // kHz
    EXPECT_EQ(cost(costs, "cpu.syscall").provenance.mark, config::Mark::P);
    EXPECT_DOUBLE_EQ(cost(costs, "cpu.syscall").value, 191'000);
    EXPECT_EQ(cost(costs, "cpu.context_switch").provenance.mark, config::Mark::P);
    EXPECT_DOUBLE_EQ(cost(costs, "cpu.context_switch").value, 3'510'000);
}

TEST(ProbeHostFile, assumptions_in_cycles_are_converted_at_the_measured_clock) {
    const config::CostRecord costs = costs_of(sample_results());
    const config::CostValue c = cost(costs, "cpu.irq_entry");
    EXPECT_EQ(c.provenance.mark, config::Mark::A);
    EXPECT_DOUBLE_EQ(c.value, 193'500);  // 600 cycles at 3100 MHz = 193.5 ns
    EXPECT_NE(c.provenance.source.find("600 cycles"), std::string::npos);
}

TEST(ProbeHostFile, a_vm_assumes_msr_accesses_and_ipi_sends_exit_to_the_host) {
    const config::CostRecord vm = costs_of(sample_results("epyc_vm_2cpu.xml", true));
    const config::CostRecord bare = costs_of(sample_results("epyc_vm_2cpu.xml", false));
    EXPECT_DOUBLE_EQ(cost(vm, "cpu.rdmsr").value, 645'200);   // 2000 cycles
    EXPECT_DOUBLE_EQ(cost(bare, "cpu.rdmsr").value, 48'400);  // 150 cycles
    EXPECT_GT(cost(vm, "intc.params.icr_write").value, cost(bare, "intc.params.icr_write").value);
    EXPECT_NE(cost(vm, "intc.params.icr_write").provenance.source.find("VM exit"), std::string::npos);
}

TEST(ProbeHostFile, a_figure_that_was_not_measured_is_assumed_with_the_reason) {
    ProbeResults r = sample_results();
    r.syscall_ns = {};
    const config::CostRecord costs = costs_of(r);
    const config::CostValue c = cost(costs, "cpu.syscall");
    EXPECT_EQ(c.provenance.mark, config::Mark::A);
    EXPECT_NE(c.provenance.source.find("not measured"), std::string::npos);
}

TEST(ProbeHostFile, unmeasured_transfer_classes_of_the_topology_are_assumed) {
    const config::CostRecord costs = costs_of(sample_results("two_packages.xml"));
    EXPECT_EQ(cost(costs, "coherence.same_l3").provenance.mark, config::Mark::P);
    EXPECT_EQ(cost(costs, "coherence.smt").provenance.mark, config::Mark::A);
    EXPECT_EQ(cost(costs, "coherence.same_die").provenance.mark, config::Mark::A);
    EXPECT_EQ(cost(costs, "coherence.cross_package").provenance.mark, config::Mark::A);
    EXPECT_EQ(cost(costs, "coherence.remote_home_extra").provenance.mark, config::Mark::A);
    EXPECT_EQ(cost(costs, "cpu.smt_throughput_percent").provenance.mark, config::Mark::A);
}

TEST(ProbeHostFile, cpuidle_states_are_the_drivers_declared_values_marked_p) {
    ProbeResults r = sample_results();
    r.cpuidle.driver = "intel_idle";
    r.cpuidle.states = {{"POLL", 0, 0, false, "CPUIDLE CORE POLL IDLE"},
                        {"C1", 1, 1, false, "MWAIT 0x00"},
                        {"C1E", 2, 4, true, "MWAIT 0x01"},
                        {"C6", 170, 500, false, "MWAIT 0x20"}};
    const std::string text = host_machine_text(r);
    const config::CostRecord costs = check_host_file(config::Document::parse(text, "host.toml")).costs;
    const hw::MachineSpec m = load_host_machine(text, "host.toml");
    ASSERT_EQ(m.idle.size(), 3U);  // the disabled C1E is left out
    EXPECT_EQ(m.idle[0].name, "POLL");
    EXPECT_EQ(m.idle[0].mechanism, hw::IdleMechanism::poll);
    EXPECT_EQ(m.idle[2].name, "C6");
    EXPECT_EQ(m.idle[2].exit_latency, sim::Picos(170'000'000));
    EXPECT_EQ(m.idle[2].mechanism, hw::IdleMechanism::mwait);
    for (const config::CostValue& c : costs) {
        if (c.key.find("exit_latency") != std::string::npos) {
            EXPECT_EQ(c.provenance.mark, config::Mark::P) << c.key;
        }
    }
}

TEST(ProbeHostFile, a_probed_states_wake_latency_is_assumed_half_its_declared_exit_latency) {
    ProbeResults r = sample_results();
    r.cpuidle.driver = "intel_idle";
    r.cpuidle.states = {{"POLL", 0, 0, false, ""}, {"C1", 1, 1, false, ""}, {"C6", 170, 500, false, ""}};
    const std::string text = host_machine_text(r);
    const config::CostRecord costs = check_host_file(config::Document::parse(text, "host.toml")).costs;
    const hw::MachineSpec m = load_host_machine(text, "host.toml");
    ASSERT_EQ(m.idle.size(), 3U);
    EXPECT_EQ(m.idle[0].wake_latency, sim::Picos::zero());
    EXPECT_EQ(m.idle[1].wake_latency, sim::Picos(500'000));
    EXPECT_EQ(m.idle[2].wake_latency, sim::Picos(85'000'000));
    EXPECT_EQ(cost(costs, "idle[0].wake_latency").provenance.mark, config::Mark::P);
    const config::CostValue c6 = cost(costs, "idle[2].wake_latency");
    EXPECT_EQ(c6.provenance.mark, config::Mark::A);
    ASSERT_TRUE(c6.provenance.range.has_value());
    EXPECT_EQ(c6.provenance.range->lo, 17'000'000.0);   // a tenth of the declared 170 us
    EXPECT_EQ(c6.provenance.range->hi, 170'000'000.0);  // all of it
}

TEST(ProbeHostFile, without_cpuidle_one_halt_state_is_assumed) {
    const hw::MachineSpec m = load_host_machine(host_machine_text(sample_results()), "h");
    ASSERT_EQ(m.idle.size(), 1U);
    EXPECT_EQ(m.idle[0].name, "HLT");
    EXPECT_EQ(m.idle[0].mechanism, hw::IdleMechanism::hlt);
}

TEST(ProbeHostFile, the_machine_loader_reads_the_probed_values) {
    const hw::MachineSpec m = load_host_machine(host_machine_text(sample_results("two_packages.xml")), "h");
    EXPECT_EQ(m.topology.nr_cpus(), 32U);
    EXPECT_EQ(m.topology.nr_packages(), 2U);
    EXPECT_EQ(m.coherence.transfer.at(hw::DistanceClass::same_l3), sim::Picos(100'000));
    EXPECT_EQ(m.cpu.syscall, sim::Picos(191'000));
    EXPECT_EQ(m.clock.khz(), 3'100'000U);
    EXPECT_EQ(m.intc.kind, "x2apic_phys");
    EXPECT_EQ(m.vendor, hw::Vendor::generic);  // the synthetic XML names no CPU vendor
}

TEST(ProbeHostFile, the_header_states_the_host_and_what_was_skipped) {
    const std::string text = host_machine_text(sample_results());
    EXPECT_NE(text.find("# virtualized: yes"), std::string::npos);
    EXPECT_NE(text.find("# skipped: cpuidle states: no cpuidle directory"), std::string::npos);
    EXPECT_NE(text.find("# APIC routing (dmesg): physical x2apic"), std::string::npos);
}

TEST(ProbeHostFile, a_bad_value_in_host_toml_is_reported_at_its_own_line) {
    const std::string text = host_machine_text(sample_results());
    const int line = line_starting(text, "    capacity = ");
    ASSERT_GT(line, 0);
    const std::string bad = replace_line(
        text, "    capacity = ", "    capacity = { mark = 'A', range = [ 0, 256 ], source = 'x', value = 0 }");
    try {
        load_host_machine(bad, "host.toml");
        FAIL() << "a capacity of 0 loaded";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.file(), "host.toml");
        EXPECT_EQ(e.line(), line);
        EXPECT_EQ(e.key(), "intc.fabric.capacity");
    }
}

TEST(ProbeHostFile, invlpgb_and_rar_are_off_and_marked_with_the_cpu_facts_they_come_from) {
    const config::CostRecord costs = costs_of(sample_results());  // AMD, no invlpgb flag
    const config::CostValue invlpgb = cost(costs, "tlb.invlpgb_count_max");
    EXPECT_EQ(invlpgb.value, 0);
    EXPECT_EQ(invlpgb.provenance.mark, config::Mark::P);
    EXPECT_NE(invlpgb.provenance.source.find("flags lack invlpgb"), std::string::npos);
    EXPECT_NE(invlpgb.provenance.source.find("2025-01-02T03:04:05Z"), std::string::npos);
    const config::CostValue rar = cost(costs, "tlb.rar_payloads");
    EXPECT_EQ(rar.provenance.mark, config::Mark::P);
    EXPECT_NE(rar.provenance.source.find("RAR is Intel-only"), std::string::npos);

    ProbeResults intel = sample_results();
    intel.info.vendor_id = "GenuineIntel";
    intel.topology.skeleton.clear();  // the vendor from /proc/cpuinfo, not the hwloc sample
    intel.info.flags.insert("invlpgb");
    const config::CostRecord i = costs_of(intel);
    EXPECT_EQ(cost(i, "tlb.invlpgb_count_max").provenance.mark, config::Mark::A);
    EXPECT_EQ(cost(i, "tlb.rar_payloads").provenance.mark, config::Mark::A);
    EXPECT_EQ(load_host_machine(host_machine_text(intel), "h").tlb.invlpgb_count_max, 0U);
}

TEST(ProbeHostFile, an_intel_host_assumes_the_sockets_interrupt_router_and_other_vendors_none) {
    const config::CostValue amd = cost(costs_of(sample_results()), "intc.fabric.router_service");
    EXPECT_EQ(amd.value, 0);
    EXPECT_EQ(amd.provenance.mark, config::Mark::A);
    ProbeResults intel = sample_results();
    intel.info.vendor_id = "GenuineIntel";
    intel.topology.skeleton.clear();  // the vendor from /proc/cpuinfo, not the hwloc sample
    const config::CostValue router = cost(costs_of(intel), "intc.fabric.router_service");
    EXPECT_EQ(router.value, 120'000);  // ps
    EXPECT_EQ(router.provenance.mark, config::Mark::A);
    EXPECT_NE(router.provenance.source.find("Ubox"), std::string::npos);
    EXPECT_EQ(load_host_machine(host_machine_text(intel), "h").intc.router_service, sim::Picos(120'000));
}

TEST(ProbeHostFile, durations_are_written_in_ns_with_one_decimal) {
    EXPECT_EQ(ns_text(100.04), "100.0 ns");
    EXPECT_EQ(ns_text(193.548), "193.5 ns");
    EXPECT_EQ(ns_text(0), "0.0 ns");
}

}  // namespace
}  // namespace ipisim::probe
