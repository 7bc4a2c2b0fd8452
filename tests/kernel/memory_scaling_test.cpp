// Memory is O(CPUs + work): setting up a machine and its kernel (per-CPU lines, CSDs, IRQ
// handlers, holder sets) with 4x the CPUs takes about 4x the heap, not 16x (the per-sender x
// per-target CSD table and 256-entry handler vectors once made it quadratic). Measured as live
// heap bytes (glibc mallinfo2), not time.
#include <malloc.h>

#include <gtest/gtest.h>

#include <cstdio>

#include <memory>

#include "config/table.h"
#include "experiment/system.h"
#include "kernel/kernel_config.h"
#include "sim/registry.h"
#include "support/kernel_world.h"
#include "workload/workload.h"

namespace ipisim::test {
namespace {

size_t live_heap() {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

// host256 (2 sockets x 128 CPUs) with `packages` sockets, one NUMA node each.
hw::MachineSpec host_with(uint32_t packages) {
    hw::MachineSpec spec = load_test_machine("host256");
    spec.topology = hw::Topology(hw::TopologySpec{packages, 8, 2, 4, 2, packages});
    return spec;
}

size_t setup_bytes(uint32_t packages) {
    hw::MachineSpec spec = host_with(packages);
    const size_t before = live_heap();
    auto world = std::make_unique<KernelWorld>(std::move(spec));
    const size_t after = live_heap();
    EXPECT_EQ(world->plat->nr_cpus(), packages * 128);
    return after - before;
}

TEST(MemoryScaling, a_machine_with_four_times_the_cpus_takes_about_four_times_the_memory_to_set_up) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer's allocator is not glibc's";
#endif
    const size_t small = setup_bytes(4);   // 512 CPUs
    const size_t large = setup_bytes(16);  // 2048 CPUs
    EXPECT_LT(static_cast<double>(large), 5.0 * static_cast<double>(small)) << small << " -> " << large << " bytes";
    // Per CPU: a few kB, whatever the size.
    EXPECT_LT(large / 2048, 8u * 1024) << large << " bytes";
}

// Issue 12: a 4096-CPU tlb_flush2 point (host256's CPUs and costs, 32 sockets of 128) is set up
// in under 115 MB: the machine, the kernel and its mm layer, the workload's 4096 tasks created
// and started (2 us simulated: each has run its first steps), everything still alive. The
// figure is printed for the notes. (Issue 12 set 100 MB, met at 24.4 KB/CPU; since the tasks
// became scheduler threads, so that rwsem waiters sleep, each also has a task_struct, its own
// process and a wake_entry CSD line: about 25.5 KB/CPU, 104 MB; 26.6 KB/CPU, 109 MB by
// 2026-12-06; with each task's pi_lock line, which try_to_wake_up takes, 27.0 KB/CPU, 110.5 MB;
// with each task's stack page present from the start, 27.1 KB/CPU, 111.1 MB.)
TEST(MemoryScaling, a_4096_cpu_tlb_flush2_point_is_set_up_in_under_115_mb) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer's allocator is not glibc's";
#endif
    const config::Document params_doc = config::Document::parse(
        "threads = 4096\nmode = \"threads\"\nwarmup = \"1 us\"\nmeasure = \"1 us\"\n", "params.toml");
    const config::Document kernel_doc = config::Document::parse("version = \"6.18\"\n", "kernel.toml");
    config::Table params = params_doc.root();
    config::Table kernel_table = kernel_doc.root();
    const size_t before = live_heap();
    auto spec = std::make_shared<const hw::MachineSpec>(host_with(32));
    const kernel::MachineInfo info(*spec);
    std::unique_ptr<workload::Workload> w = sim::Registry<workload::Workload>::instance().create("tlb_flush2");
    w->read(params);
    const kernel::KernelConfig config = kernel::read_kernel_config(kernel_table, info);
    w->check(workload::PointSetup{params, kernel_table, info, config});
    experiment::System sys(spec, config);
    ASSERT_EQ(sys.platform().nr_cpus(), 4096u);
    const workload::RunResult r = w->run(workload::RunContext{1, &sys.kernel()});
    const size_t used = live_heap() - before;
    EXPECT_GT(sys.engine().events_dispatched(), 4096u);
    std::printf("4096-CPU tlb_flush2 point set up and started: %.1f MB live heap (%zu bytes/CPU)\n",
                static_cast<double>(used) / 1e6, used / 4096);
    EXPECT_LT(used, size_t{115} * 1000 * 1000) << used << " bytes";
    (void)r;
}

}  // namespace
}  // namespace ipisim::test
