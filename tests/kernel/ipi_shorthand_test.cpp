// The x86 IPI destination shorthand (docs/mechanisms.md §4.6): smp_call_function_many() to
// every other online CPU reaches native_send_call_func_ipi() (arch/x86/kernel/apic/ipi.c)
// with mask | self == cpu_online_mask, and with the apic_use_ipi_shorthand key on sends ONE
// all-but-self ICR write; any other mask, `no_ipi_broadcast`, or a kernel before the v5.4
// shorthand rework takes the per-target (per-cluster) send_IPI_mask path.
// toy4: xAPIC, 4 CPUs, ICR read 50, write 50, busy 200 (+50 per message in flight);
// toy8: x2APIC, 8 CPUs, fence 50, ICR write 100. Expected costs come from the machine files.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/intc/intc_type.h"
#include "hw/intc/x2apic.h"
#include "hw/intc/xapic_mmio.h"
#include "hw/platform.h"
#include "kernel/costs.h"
#include "kernel/kernel.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using sim::Picos;

namespace {

kernel::KernelConfig kernel_config(bool no_ipi_broadcast = false, const std::string& version = "") {
    kernel::KernelConfig k;
    k.version = version;
    k.no_ipi_broadcast = no_ipi_broadcast;
    return k;
}

struct Outcome {
    uint64_t icr_writes = 0;       // IntcStats::register_writes during the call
    uint64_t shorthand_sends = 0;  // IrqchipStats::shorthand_sends
    int calls = 0;                 // the function ran on this many CPUs
    std::vector<uint64_t> irqs;    // per CPU
    Picos send_time;               // CPU 0's time in `send_labels` (each label's own time)
};

// CPU 0 runs smp_call_function_many(targets, wait) once on an otherwise idle (polling) machine.
Outcome call_many(hw::MachineSpec spec, kernel::KernelConfig config, const std::vector<hw::CpuId>& targets,
                  const std::vector<std::string>& send_labels) {
    test::KernelWorld w(std::move(spec), std::move(config));
    Outcome out;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        const uint64_t writes0 = w.plat->intc().stats().register_writes;
        hw::CpuMask mask(w.plat->nr_cpus());
        for (const hw::CpuId c : targets) mask.set(c);
        kernel::SmpCallFunc func = [&out](Cpu& c) -> sim::Task<> {
            ++out.calls;
            co_await c.compute_cycles(kernel::costs::empty_function);
        };
        co_await w.k->smp().smp_call_function_many(cpu, mask, func, true);
        out.icr_writes = w.plat->intc().stats().register_writes - writes0;
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    out.shorthand_sends = w.k->irqchip().stats().shorthand_sends;
    for (hw::CpuId c = 0; c < w.plat->nr_cpus(); ++c) out.irqs.push_back(w.plat->cpu(c).irqs_taken());
    hw::CpuProfile& prof = w.plat->cpu(0).profile();
    prof.settle(w.eng.now());
    for (const std::string& l : send_labels) out.send_time += prof.time_in_label(hw::profile_label(l));
    return out;
}

// CPUs 1 .. n-1.
std::vector<hw::CpuId> all_but_cpu0(uint32_t n) {
    std::vector<hw::CpuId> out;
    for (hw::CpuId c = 1; c < n; ++c) out.push_back(c);
    return out;
}

}  // namespace

TEST(IpiShorthand, an_xapic_call_to_all_other_cpus_is_one_icr_write_delivered_to_every_target) {
    const hw::MachineSpec spec = test::load_test_machine("toy4");
    const hw::XapicParams& p = hw::intc_params<hw::XapicParams>(spec);
    const Outcome o =
        call_many(spec, kernel_config(), {1, 2, 3}, {"default_send_IPI_allbutself", "apic_mem_wait_icr_idle"});
    EXPECT_EQ(o.icr_writes, 1u);
    EXPECT_EQ(o.shorthand_sends, 1u);
    EXPECT_EQ(o.calls, 3);
    EXPECT_EQ(o.irqs, (std::vector<uint64_t>{0, 1, 1, 1}));
    // __default_send_IPI_shortcut: one ICR read (idle), then the ICR write; no ICR2.
    EXPECT_EQ(o.send_time, p.icr_read + p.icr_write);
    EXPECT_EQ(o.send_time, 100_ns);
}

TEST(IpiShorthand, an_xapic_call_to_all_but_one_other_cpu_writes_the_icr_once_per_target) {
    const Outcome o =
        call_many(test::load_test_machine("toy4"), kernel_config(), {1, 2}, {"default_send_IPI_allbutself"});
    EXPECT_EQ(o.icr_writes, 2u);
    EXPECT_EQ(o.shorthand_sends, 0u);
    EXPECT_EQ(o.send_time, Picos::zero());
    EXPECT_EQ(o.irqs, (std::vector<uint64_t>{0, 1, 1, 0}));
}

TEST(IpiShorthand, no_ipi_broadcast_sends_to_all_other_cpus_one_icr_write_each) {
    const Outcome o =
        call_many(test::load_test_machine("toy4"), kernel_config(true), {1, 2, 3}, {"default_send_IPI_allbutself"});
    EXPECT_EQ(o.icr_writes, 3u);
    EXPECT_EQ(o.shorthand_sends, 0u);
    EXPECT_EQ(o.calls, 3);
    EXPECT_EQ(o.irqs, (std::vector<uint64_t>{0, 1, 1, 1}));
}

TEST(IpiShorthand, the_oldest_kernel_the_model_knows_has_the_v5_4_shorthand) {
    EXPECT_EQ(call_many(test::load_test_machine("toy4"), kernel_config(false, "5.12"), {1, 2, 3}, {"x"}).icr_writes,
              1u);
}

TEST(IpiShorthand, an_x2apic_phys_call_to_all_other_cpus_is_the_fence_and_one_icr_write) {
    const hw::MachineSpec spec = test::load_test_machine("toy8", {"intc.kind=x2apic_phys"});
    const hw::X2apicParams& p = hw::intc_params<hw::X2apicParams>(spec);
    const Outcome o = call_many(spec, kernel_config(), all_but_cpu0(8), {"x2apic_send_IPI_allbutself"});
    EXPECT_EQ(o.icr_writes, 1u);
    EXPECT_EQ(o.shorthand_sends, 1u);
    EXPECT_EQ(o.calls, 7);
    for (hw::CpuId c = 1; c < 8; ++c) EXPECT_EQ(o.irqs[c], 1u) << c;
    // __x2apic_send_IPI_shorthand: weak_wrmsr_fence(), one ICR WRMSR.
    EXPECT_EQ(o.send_time, p.fence + p.icr_write);
    EXPECT_EQ(o.send_time, 150_ns);

    const Outcome off = call_many(spec, kernel_config(true), all_but_cpu0(8), {"__x2apic_send_IPI_mask"});
    EXPECT_EQ(off.icr_writes, 7u);
    EXPECT_EQ(off.send_time, p.fence + 7 * p.icr_write);
}

TEST(IpiShorthand, an_x2apic_cluster_call_to_all_other_cpus_of_two_clusters_is_one_icr_write) {
    // 8 cores per L3: each package is one 16-CPU cluster; the mask path writes once per cluster.
    const hw::MachineSpec spec = test::load_test_machine("toy8", {"topology.cores_per_l3=8"});
    const Outcome on = call_many(spec, kernel_config(), all_but_cpu0(32), {"x2apic_send_IPI_allbutself"});
    EXPECT_EQ(on.icr_writes, 1u);
    EXPECT_EQ(on.calls, 31);
    const Outcome off = call_many(spec, kernel_config(true), all_but_cpu0(32), {"x2apic_send_IPI_allbutself"});
    EXPECT_EQ(off.icr_writes, 2u);
    EXPECT_EQ(off.calls, 31);
}

TEST(IpiShorthand, a_gicv3_call_to_all_other_cpus_takes_the_mask_path) {
    // arm64's arch_send_call_function_ipi_mask is smp_cross_call -> gic_ipi_send_mask, which
    // does not set ICC_SGI1R_EL1.IRM: one SGI1R write per affinity group ({1}, {2, 3}).
    const Outcome o = call_many(test::load_test_machine("toy4_arm"), kernel_config(), {1, 2, 3}, {"gic_ipi_send_mask"});
    EXPECT_EQ(o.icr_writes, 2u);
    EXPECT_EQ(o.shorthand_sends, 0u);
    EXPECT_EQ(o.calls, 3);
}

TEST(IpiShorthand, with_a_cpu_offline_a_call_to_all_online_others_is_one_write_the_offline_cpu_does_not_take) {
    // cpu3 offline: cpu_online_mask = {0, 1, 2}; smp_call_function_many's mask & online =
    // {1, 2} = every other online CPU, so the shorthand goes out. cpu3's local APIC is
    // software-disabled (apic_soft_disable) and does not accept it.
    test::KernelWorld w(test::load_test_machine("toy4"), kernel_config());
    w.k->smp().set_cpu_online(3, false);
    EXPECT_FALSE(w.plat->intc().software_enabled(3));
    int calls = 0;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        const hw::CpuMask all = hw::CpuMask::all(4);
        kernel::SmpCallFunc func = [&calls](Cpu& c) -> sim::Task<> {
            ++calls;
            co_await c.compute_cycles(kernel::costs::empty_function);
        };
        co_await w.k->smp().smp_call_function_many(cpu, all, func, true);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    EXPECT_EQ(w.plat->intc().stats().register_writes, 1u);
    EXPECT_EQ(w.k->irqchip().stats().shorthand_sends, 1u);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(w.plat->cpu(3).irqs_taken(), 0u);
    EXPECT_EQ(w.plat->cpu(1).irqs_taken(), 1u);
    EXPECT_EQ(w.plat->cpu(2).irqs_taken(), 1u);
    EXPECT_EQ(w.plat->intc().fabric().stats().delivered, 2u);
}
