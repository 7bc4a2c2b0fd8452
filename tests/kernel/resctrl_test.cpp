// resctrl mon_event_read dispatch on toy8 (2 packages x 2 L3 domains x 2 CPUs; machines/toy8.toml).
#include <gtest/gtest.h>

#include <string>

#include "hw/platform.h"
#include "kernel/kernel.h"
#include "kernel/resctrl/resctrl.h"
#include "support/kernel_world.h"
#include "support/paths.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::MonDispatch;
using kernel::QosEvent;
using kernel::Thread;
using sim::Picos;

namespace {

struct World : test::KernelWorld {
    std::unique_ptr<kernel::Sched> sched;
    std::unique_ptr<kernel::Workqueue> wq;
    std::unique_ptr<kernel::Resctrl> rdt;
    explicit World(const std::string& machine) : KernelWorld(machine) {
        sched = std::make_unique<kernel::Sched>(*k);
        wq = std::make_unique<kernel::Workqueue>(*sched);
        rdt = std::make_unique<kernel::Resctrl>(*sched, *wq);
    }
    ~World() override {
        eng.shutdown();
        rdt.reset();
        wq.reset();
        sched.reset();
    }
    // One read by a thread on CPU 0; returns the thread.
    Thread& read_from_cpu0(uint32_t domain, MonDispatch d, Picos* took = nullptr) {
        return sched->spawn("reader", 0, [this, domain, d, took](Cpu& cpu, Thread&) -> sim::Task<> {
            const Picos start = eng.now();
            const uint64_t v = co_await rdt->mon_event_read(cpu, domain, 5, QosEvent::mbm_local, d);
            EXPECT_EQ(v, (5u << 8) | 3u);
            if (took != nullptr) *took = eng.now() - start;
        });
    }
};

}  // namespace

TEST(Resctrl, domains_are_the_l3_caches) {
    World w("toy8");
    ASSERT_GE(w.rdt->nr_domains(), 2u);
    EXPECT_EQ(w.rdt->domain_of(0), 0u);
    EXPECT_TRUE(w.rdt->domain_mask(0).test(0));
    EXPECT_FALSE(w.rdt->domain_mask(1).test(0));
}

TEST(Resctrl, call_any_from_inside_the_domain_reads_locally_without_an_ipi_or_a_switch) {
    World w("toy8");
    Picos took;
    Thread& t = w.read_from_cpu0(0, MonDispatch::call_any, &took);
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(w.rdt->stats().reads_on_caller_cpu, 1u);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 0u);
    EXPECT_EQ(t.nvcsw, 0u);
    EXPECT_GT(took, Picos::zero());
}

TEST(Resctrl, call_on_cpu_from_inside_the_domain_still_goes_through_the_kworker) {
    World w("toy8");
    Thread& t = w.read_from_cpu0(0, MonDispatch::call_on_cpu);
    w.k->boot();
    w.eng.run_until(1_ms);
    // The counter is read on CPU 0 (the domain's first CPU), by its kworker, not by the caller.
    EXPECT_EQ(w.rdt->stats().reads_on_caller_cpu, 1u);
    EXPECT_EQ(w.wq->stats().executed, 1u);
    EXPECT_EQ(t.nvcsw, 1u);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 0u);
}

TEST(Resctrl, call_any_to_a_remote_domain_sends_one_ipi_and_spins) {
    World w("toy8");
    Thread& t = w.read_from_cpu0(1, MonDispatch::call_any);
    w.k->boot();
    w.eng.run_until(1_ms);
    EXPECT_EQ(w.rdt->stats().reads_on_caller_cpu, 0u);
    EXPECT_EQ(w.k->smp().stats().ipis_single, 1u);
    EXPECT_EQ(t.nvcsw, 0u);  // it spun, never slept
    EXPECT_GT(w.plat->cpu(0).profile().time_in(hw::Activity::spin), Picos::zero());
}

TEST(Resctrl, the_qm_ctr_read_cost_comes_from_the_machine_and_follows_the_published_ratios) {
    // machines/*.toml derive rdmsr_qm_ctr from docs/calibration.md: ~4.5x wrmsr on Intel, ~2x on AMD.
    const std::string dir = ipisim::test::source_path("machines/");
    hw::MachineSpec xeon = hw::load_machine(dir + "xeon_8173m_2s.toml");
    hw::MachineSpec epyc = hw::load_machine(dir + "epyc_7b12_2s.toml");
    EXPECT_EQ(kernel::Resctrl::qm_ctr_read_cost(xeon), xeon.cpu.wrmsr * 9 / 2);
    EXPECT_EQ(kernel::Resctrl::qm_ctr_read_cost(epyc), epyc.cpu.wrmsr * 2);
}
