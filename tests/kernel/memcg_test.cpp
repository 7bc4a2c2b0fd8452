// Memory-cgroup accounting (kernel/mm/memcg.h, docs/mechanisms.md §5.4): charges come from the
// per-CPU stock and refill it 64 pages at a time with one atomic per level; every freeing batch
// uncharges with one atomic per level. toy8 (machines/toy8.toml): 1 GHz (1 cycle = 1 ns),
// l1_hit 1 ns, memory_local 100 ns, cross-package transfer 200 ns; CPUs 0-3 package 0, 4-7
// package 1. Costs (kernel/mm/mm_costs.h): mem_cgroup_charge 100 cycles, page_counter_level 20.
#include <gtest/gtest.h>

#include <vector>

#include "hw/platform.h"
#include "kernel/mm/memcg.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MemCgroup;
using sim::Picos;

namespace {

// Runs `body` on CPU `c` and returns the times it recorded.
template <class Body>
std::vector<Picos> on_cpu(test::KernelWorld& w, hw::CpuId c, Body body) {
    std::vector<Picos> times;
    w.k->run_on(c, [&times, body](Cpu& cpu) -> sim::Task<> { co_await body(cpu, times); });
    w.k->boot();
    w.eng.run_until(1_ms);
    return times;
}

}  // namespace

TEST(Memcg, a_charge_takes_the_cpus_stock_and_refills_it_64_pages_at_a_time) {
    test::KernelWorld w("toy8");
    MemCgroup memcg(w.plat->memory(), 3, 8);
    const std::vector<Picos> t = on_cpu(w, 0, [&memcg](Cpu& cpu, std::vector<Picos>& out) -> sim::Task<> {
        for (int i = 0; i < 65; ++i) {
            const Picos t0 = cpu.now();
            co_await memcg.charge(cpu, 1);
            out.push_back(cpu.now() - t0);
        }
    });
    ASSERT_EQ(t.size(), 65U);
    // First: 100 charge path + 4 levels (3 + the root) x (100 ns fetch from local memory + 20).
    EXPECT_EQ(t[0], 580_ns);
    for (int i = 1; i < 64; ++i) EXPECT_EQ(t[i], 100_ns) << i;  // from the stock
    // The 65th refills again: the 4 lines are CPU 0's now, 4 x (1 ns hit + 20).
    EXPECT_EQ(t[64], 184_ns);
    for (uint32_t l = 0; l <= 3; ++l) EXPECT_EQ(memcg.usage(l), 128) << l;
    EXPECT_EQ(memcg.stock(0), 63U);
    EXPECT_EQ(memcg.stats().counter_charges, 2U);
}

TEST(Memcg, a_freeing_batch_uncharges_every_level_with_one_atomic_whatever_its_size) {
    test::KernelWorld w("toy8");
    MemCgroup memcg(w.plat->memory(), 3, 8);
    // CPU 0 charges (the lines become its), then CPU 4 in the other package frees batches.
    w.k->run_on(0, [&memcg](Cpu& cpu) -> sim::Task<> { co_await memcg.charge(cpu, 1); });
    std::vector<Picos> t;
    w.k->run_on(4, [&memcg, &t](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(10_us);
        for (uint32_t nr : {15U, 1U}) {
            const Picos t0 = cpu.now();
            co_await memcg.uncharge_batch(cpu, nr);
            t.push_back(cpu.now() - t0);
        }
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    ASSERT_EQ(t.size(), 2U);
    // 4 levels x (200 ns cross-package transfer from CPU 0 + 20); then 4 x (1 ns hit + 20).
    EXPECT_EQ(t[0], 880_ns);
    EXPECT_EQ(t[1], 84_ns);
    for (uint32_t l = 0; l <= 3; ++l) EXPECT_EQ(memcg.usage(l), 64 - 16) << l;
    EXPECT_EQ(memcg.stats().uncharge_batches, 2U);
}

TEST(Memcg, the_root_cgroup_is_not_charged) {
    test::KernelWorld w("toy8");
    MemCgroup memcg(w.plat->memory(), 0, 8);
    const std::vector<Picos> t = on_cpu(w, 0, [&memcg](Cpu& cpu, std::vector<Picos>& out) -> sim::Task<> {
        Picos t0 = cpu.now();
        co_await memcg.charge(cpu, 1);
        out.push_back(cpu.now() - t0);
        t0 = cpu.now();
        co_await memcg.uncharge_batch(cpu, 1);
        out.push_back(cpu.now() - t0);
    });
    ASSERT_EQ(t.size(), 2U);
    EXPECT_EQ(t[0], 100_ns);  // the charge path only
    EXPECT_EQ(t[1], Picos::zero());
    EXPECT_EQ(memcg.stats().counter_charges, 0U);
}
