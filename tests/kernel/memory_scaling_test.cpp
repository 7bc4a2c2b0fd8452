// Memory is O(CPUs + work): setting up a machine and its kernel (per-CPU lines, CSDs, IRQ
// handlers, holder sets) with 4x the CPUs takes about 4x the heap, not 16x (the per-sender x
// per-target CSD table and 256-entry handler vectors once made it quadratic). Measured as live
// heap bytes (glibc mallinfo2), not time.
#include <malloc.h>

#include <gtest/gtest.h>

#include <memory>

#include "support/kernel_world.h"

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

}  // namespace
}  // namespace ipisim::test
