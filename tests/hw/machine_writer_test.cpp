// write_machine(): every shipped machine written and loaded back gives the same spec (the same
// file again, the same cost record) and the same fingerprint on a small run; --set on a marked
// cost replaces its value and marks it "set"; errors on an overridden value name "--set".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/writer.h"
#include "hw/cpu/cpu.h"
#include "hw/machine.h"
#include "hw/platform.h"
#include "sim/engine.h"
#include "support/paths.h"

namespace ipisim::hw {
namespace {

using namespace sim::literals;

const std::string kMachines = ipisim::test::source_path("machines");

MachineSpec reload(const MachineSpec& m) {
    return load_machine(config::Document::parse(config::to_toml_text(write_machine(m)), m.name + ".written"), m.name);
}

// Every CPU writes and reads a shared line and takes an IPI from CPU 0; cycles, transfers,
// delivery, interrupt entry and idle exit all show in the fingerprint.
uint64_t small_run_fingerprint(const MachineSpec& spec) {
    sim::Engine eng;
    Platform plat(eng, spec);
    SimVar& shared = plat.memory().new_aligned_var("shared", 0);
    for (CpuId c = 0; c < plat.nr_cpus(); ++c) {
        plat.cpu(c).set_irq_handler(0xfb, "test_ipi", [](Cpu& cpu, const sim::Interrupt&) -> sim::Task<> {
            co_await cpu.compute_cycles(sim::Cycles(100));
        });
        auto body = [](Platform& p, SimVar& v, CpuId me) -> sim::Proc {
            Cpu& cpu = p.cpu(me);
            co_await p.memory().store(me, v, me);
            (void)co_await p.memory().load(me, v);
            if (me == 0) {
                for (CpuId t = 1; t < p.nr_cpus(); ++t) p.intc().fabric().send(0, t, 0xfb, DeliveryMode::fixed);
            }
            co_await cpu.idle();
            co_await cpu.compute(1_us);
        };
        plat.cpu(c).set_idle_state(plat.spec().idle.size() - 1);
        plat.cpu(c).set_running(&eng.spawn("cpu" + std::to_string(c), body(plat, shared, c)));
    }
    eng.run_until(5_ms);
    return eng.fingerprint();
}

void expect_same_costs(const config::CostRecord& a, const config::CostRecord& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        SCOPED_TRACE(a[i].key);
        EXPECT_EQ(a[i].key, b[i].key);
        EXPECT_EQ(a[i].value, b[i].value);
        EXPECT_EQ(a[i].provenance.mark, b[i].provenance.mark);
        EXPECT_EQ(a[i].provenance.source, b[i].provenance.source);
        EXPECT_EQ(a[i].provenance.target, b[i].provenance.target);
        ASSERT_EQ(a[i].provenance.range.has_value(), b[i].provenance.range.has_value());
        if (a[i].provenance.range) {
            EXPECT_EQ(a[i].provenance.range->lo, b[i].provenance.range->lo);
            EXPECT_EQ(a[i].provenance.range->hi, b[i].provenance.range->hi);
        }
    }
}

TEST(MachineWriter, every_shipped_machine_written_and_loaded_back_is_the_same_machine) {
    for (const std::string& name : list_machines(kMachines)) {
        SCOPED_TRACE(name);
        const MachineSpec m = load_machine_by_name(kMachines, name);
        const MachineSpec back = reload(m);
        EXPECT_EQ(config::to_toml_text(write_machine(back)), config::to_toml_text(write_machine(m)));
        expect_same_costs(m.costs, back.costs);
        EXPECT_EQ(back.description, m.description);
        EXPECT_EQ(back.topology.summary(), m.topology.summary());
        EXPECT_EQ(back.intc.kind, m.intc.kind);
        EXPECT_EQ(back.idle.size(), m.idle.size());
        EXPECT_EQ(back.coherence.memory_remote, m.coherence.memory_remote);
        EXPECT_EQ(back.tlb.nr_dyn_asids, m.tlb.nr_dyn_asids);
        for (DistanceClass c : kAllDistanceClasses) {
            EXPECT_EQ(back.coherence.transfer.at(c), m.coherence.transfer.at(c)) << to_string(c);
            EXPECT_EQ(back.intc.delivery.at(c), m.intc.delivery.at(c)) << to_string(c);
        }
    }
}

TEST(MachineWriter, a_written_machine_runs_to_the_same_fingerprint) {
    for (const char* name : {"toy4", "toy8", "toy4_arm", "sapphire_rapids_30c", "kunpeng920", "milan_36c"}) {
        SCOPED_TRACE(name);
        const MachineSpec m = load_machine_by_name(kMachines, name);
        EXPECT_EQ(small_run_fingerprint(reload(m)), small_run_fingerprint(m));
    }
    // The run sees the machine's costs: another delivery latency, another fingerprint.
    const MachineSpec toy8 = load_machine_by_name(kMachines, "toy8");
    const MachineSpec slower = load_machine(
        [] {
            config::Document d = config::Document::load(kMachines + "/toy8.toml");
            d.apply_override("intc.fabric.same_l3=\"600 ns\"");
            return d;
        }(),
        "toy8");
    EXPECT_NE(small_run_fingerprint(slower), small_run_fingerprint(toy8));
}

TEST(MachineWriter, the_cost_record_names_every_cost_with_its_file_and_line) {
    const MachineSpec m = load_machine_by_name(kMachines, "toy8");
    const config::CostValue* c = m.cost("coherence.same_die");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->value, 100'000);  // ps
    EXPECT_EQ(c->file, kMachines + "/toy8.toml");
    EXPECT_GT(c->line, 0);
    EXPECT_NE(m.cost("idle[2].exit_latency"), nullptr);
    EXPECT_NE(m.cost("intc.params.icr_write"), nullptr);
    EXPECT_NE(m.cost("intc.fabric.cross_package"), nullptr);
    EXPECT_NE(m.cost("clock"), nullptr);
    EXPECT_EQ(m.cost("coherence.smt"), nullptr);      // toy8 has no SMT
    EXPECT_EQ(m.cost("topology.packages"), nullptr);  // structure, not a cost
}

MachineSpec with_overrides(const std::string& name, const std::vector<std::string>& sets) {
    config::Document doc = config::Document::load(kMachines + "/" + name + ".toml");
    for (const std::string& s : sets) doc.apply_override(s);
    return load_machine(doc, name);
}

TEST(MachineWriter, a_plain_set_value_replaces_a_marked_cost_and_marks_it_set) {
    std::string text = config::Document::read_text(kMachines + "/toy8.toml");
    const std::string plain = "same_l3 = \"50 ns\"";
    ASSERT_NE(text.find(plain), std::string::npos);
    text.replace(text.find(plain), plain.size(),
                 "same_l3 = { value = \"50 ns\", mark = \"A\", range = [\"40 ns\", \"60 ns\"], source = \"a toy\" }");
    config::Document doc = config::Document::parse(text, "marked.toml");
    EXPECT_EQ(load_machine(doc, "marked").cost("coherence.same_l3")->provenance.mark, config::Mark::A);
    doc.apply_override("coherence.same_l3=\"55 ns\"");
    const MachineSpec m = load_machine(doc, "marked");
    EXPECT_EQ(m.coherence.transfer.at(DistanceClass::same_l3), 55_ns);
    const config::CostValue& c = *m.cost("coherence.same_l3");
    EXPECT_EQ(c.provenance.mark, config::Mark::set);
    EXPECT_EQ(c.provenance.source, "--set (the file's A value: a toy)");
    ASSERT_TRUE(c.provenance.range.has_value());
    EXPECT_EQ(c.provenance.range->hi, 60'000);
    // Written back, the value stays marked "set" and loads.
    const MachineSpec back = reload(m);
    EXPECT_EQ(back.coherence.transfer.at(DistanceClass::same_l3), 55_ns);
    EXPECT_EQ(back.cost("coherence.same_l3")->provenance.mark, config::Mark::set);
    EXPECT_EQ(back.cost("coherence.same_l3")->provenance.source, c.provenance.source);
}

TEST(MachineWriter, set_replaces_the_value_of_a_marked_cost_keeping_its_range_and_source) {
    // sapphire_rapids_30c marks coherence.same_l3 ("60 ns", A); a plain --set replaces the value.
    const MachineSpec base = load_machine_by_name(kMachines, "sapphire_rapids_30c");
    const MachineSpec m = with_overrides("sapphire_rapids_30c", {"coherence.same_l3=\"70 ns\""});
    EXPECT_EQ(m.coherence.transfer.at(DistanceClass::same_l3), 70_ns);
    const config::CostValue& c = *m.cost("coherence.same_l3");
    EXPECT_EQ(c.provenance.mark, config::Mark::set);
    EXPECT_EQ(c.value, 70'000);
    const config::CostValue& was = *base.cost("coherence.same_l3");
    ASSERT_EQ(was.provenance.mark, config::Mark::A);
    EXPECT_EQ(c.provenance.source, "--set (the file's A value: " + was.provenance.source + ")");
    ASSERT_TRUE(c.provenance.range.has_value());
    EXPECT_EQ(c.provenance.range->lo, was.provenance.range->lo);
    EXPECT_EQ(c.provenance.range->hi, was.provenance.range->hi);
    // The written file keeps the override and loads with it.
    const MachineSpec back = reload(m);
    EXPECT_EQ(back.coherence.transfer.at(DistanceClass::same_l3), 70_ns);
    EXPECT_EQ(back.cost("coherence.same_l3")->provenance.mark, config::Mark::set);
}

TEST(MachineWriter, a_set_value_outside_the_files_range_is_allowed_and_marked_set) {
    const MachineSpec m = with_overrides("sapphire_rapids_30c", {"coherence.same_l3=\"500 ns\""});
    EXPECT_EQ(m.coherence.transfer.at(DistanceClass::same_l3), 500_ns);
    EXPECT_EQ(m.cost("coherence.same_l3")->provenance.mark, config::Mark::set);
}

TEST(MachineWriter, a_set_plain_cost_is_marked_set) {
    const MachineSpec m = with_overrides("toy8", {"intc.params.icr_write=\"80 ns\""});
    EXPECT_EQ(m.cost("intc.params.icr_write")->provenance.mark, config::Mark::set);
    EXPECT_EQ(m.cost("intc.params.icr_write")->provenance.source, "--set");
    EXPECT_EQ(m.cost("intc.params.fence")->provenance.mark, config::Mark::unmarked);
}

std::string error_of(const std::string& name, const std::vector<std::string>& sets) {
    try {
        (void)with_overrides(name, sets);
    } catch (const config::ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(MachineWriter, errors_on_a_set_machine_value_name_set) {
    EXPECT_EQ(error_of("sapphire_rapids_30c", {"coherence.same_l3=\"70 parsecs\""}),
              "--set: coherence.same_l3: unknown duration unit \"parsecs\" (use ps, ns, us, ms or s)");
    EXPECT_EQ(error_of("sapphire_rapids_30c", {"coherence.same_l3=70"}),
              "--set: coherence.same_l3: expected a string like the value it replaces, got an integer");
    EXPECT_EQ(error_of("toy8", {"intc.fabric.capacity=0"}),
              "--set: intc.fabric.capacity: must be at least 1 message in flight");
    EXPECT_EQ(error_of("toy8", {"coherence.smt=\"10 ns\""}),
              "--set: coherence.smt: only meaningful when threads_per_core > 1");
    EXPECT_EQ(error_of("toy8", {"topology.threads_per_core=3"}),
              "--set: topology.threads_per_core: must be at most 2 on x86, got 3");
}

}  // namespace
}  // namespace ipisim::hw
