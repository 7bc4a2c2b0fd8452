// A machine instance wires every component of its profile.
#include <gtest/gtest.h>

#include <string>

#include "hw/platform.h"
#include "support/paths.h"
#include "support/test_machine.h"

using namespace ipisim;

TEST(Platform, every_shipped_machine_builds_with_a_cpu_and_tlb_per_logical_cpu) {
    for (const std::string& name : hw::list_machines(ipisim::test::source_path("machines"))) {
        hw::MachineSpec spec = test::load_test_machine(name);
        sim::Engine eng;
        hw::Platform p(eng, spec);
        EXPECT_EQ(p.nr_cpus(), spec.topology.nr_cpus()) << name;
        for (hw::CpuId c = 0; c < p.nr_cpus(); ++c) EXPECT_EQ(p.cpu(c).id(), c);
        EXPECT_EQ(p.invlpgb() != nullptr, spec.tlb.invlpgb_count_max > 0) << name;
        EXPECT_EQ(p.rar() != nullptr, spec.tlb.rar_payloads > 0) << name;
        (void)p.tlb(p.nr_cpus() - 1);
    }
}

TEST(Platform, smt_siblings_are_wired_so_they_share_the_core) {
    hw::MachineSpec spec = test::load_test_machine("toy4");  // 2 cores x 2 threads, smt_last: 0/2 and 1/3
    sim::Engine eng;
    hw::Platform p(eng, spec);
    sim::Picos done;
    auto busy = [&](hw::CpuId c, sim::Picos work, bool record) -> sim::Proc {
        co_await p.cpu(c).compute(work);
        if (record) done = eng.now();
    };
    p.cpu(0).set_running(&eng.spawn("cpu0", busy(0, sim::Picos(1'000'000), true)));
    p.cpu(2).set_running(&eng.spawn("cpu2", busy(2, sim::Picos(1'000'000), false)));
    eng.run();
    // Both siblings busy the whole time: each runs at smt_throughput_percent.
    const uint64_t pct = spec.cpu.smt_throughput_percent;
    EXPECT_EQ(done, sim::Picos((1'000'000 * 100 + pct - 1) / pct));
}
