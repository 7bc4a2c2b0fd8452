// tlb_flush "numa-multicast" (kernel/tlbflush/numa_multicast.cpp): the initiator sends one
// message per L3 domain to a representative CPU, which forwards it to the domain's targets; the
// domain's acknowledgements are combined on a domain-local counter and one aggregate
// acknowledgement goes back. Exact times and message counts on toy8.
//
// toy8 (machines/toy8.toml): 1 GHz (1 cycle = 1 ns); 2 packages x 2 L3 x 2 cores, no SMT, one
// NUMA node per package: L3 domains {0,1}, {2,3}, {4,5}, {6,7}. Line transfers: same L3 50 ns,
// same die 100 ns, cross package 200 ns (+100 ns when the line's home is remote), memory
// 100/200 ns; IRQ entry 200 + EOI 50 + exit 100 ns; x2APIC cluster ICR write 100 ns, fabric 500 ns.
#include <gtest/gtest.h>

#include "kernel/mm/mm.h"
#include "kernel/tlbflush/numa_multicast.h"
#include "mm_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SHIFT;
using kernel::mm::PAGE_SIZE;
using mmtest::kVa;
using mmtest::MmWorld;
using mmtest::start_cpus;
using sim::Picos;

namespace {

struct Flushes {
    Picos cold;                         // the first flush (cold lines)
    Picos warm;                         // the second, 10 us later
    kernel::NumaMulticastStats second;  // the warm flush's messages
};

const kernel::NumaMulticastStats& stats(MmWorld& w) {
    return dynamic_cast<kernel::NumaMulticastFlush&>(w.mm->protocol()).stats();
}

// CPU 0 flushes kVa twice while `busy` CPUs compute in the mm and `lazy` ones idle lazily.
Flushes flush_twice(MmWorld& w, MmStruct& mm, std::initializer_list<hw::CpuId> busy,
                    std::initializer_list<hw::CpuId> lazy = {}) {
    start_cpus(w, mm, busy, 200_us);
    start_cpus(w, mm, lazy, 0_us, lazy);
    Flushes out;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.mm->switch_mm_irqs_off(cpu, mm);
        w.mm->tlb(0).fill(w.mm->loaded_pcid(0), kVa, cpu.now());
        co_await cpu.compute(10_us);  // the others are in the mm by now
        Picos t0 = cpu.now();
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, false);
        out.cold = cpu.now() - t0;
        const kernel::NumaMulticastStats before = stats(w);
        for (hw::CpuId c : busy) w.mm->tlb(c).fill(w.mm->loaded_pcid(c), kVa, cpu.now());
        co_await cpu.compute(10_us);
        t0 = cpu.now();
        co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + PAGE_SIZE, PAGE_SHIFT, false);
        out.warm = cpu.now() - t0;
        const kernel::NumaMulticastStats& after = stats(w);
        out.second.domain_requests = after.domain_requests - before.domain_requests;
        out.second.forwards = after.forwards - before.forwards;
        out.second.ipis = after.ipis - before.ipis;
        out.second.aggregate_acks = after.aggregate_acks - before.aggregate_acks;
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
    return out;
}

}  // namespace

TEST(NumaMulticast, a_flush_to_one_cpu_in_the_other_package_is_one_message_and_one_aggregate_ack) {
    MmWorld w("toy8", "numa-multicast");
    MmStruct& mm = w.mm->mm_alloc(0);
    const Flushes f = flush_twice(w, mm, {4});
    EXPECT_EQ(w.cpu(4).irqs_taken(), 2u);
    EXPECT_EQ(w.mm->tlb(4).find(w.mm->loaded_pcid(4), kVa), nullptr);
    EXPECT_EQ(f.second.domain_requests, 1u);
    EXPECT_EQ(f.second.forwards, 0u);
    EXPECT_EQ(f.second.aggregate_acks, 2u);  // CPU 4's domain, and CPU 0's own
    // The warm call, 4223 ns: the ipi protocol's steps (tlb_gen, flush_tlb_info, CPU 4's
    // flush_tlb_func) plus the multicast's own lines, each a cross-package transfer: CPU 0
    // stores its ack line and adds to CPU 4's mailbox (both last written by CPU 4, 300 ns with
    // the remote home), the ICR write and the 500 ns fabric; CPU 4, after IRQ entry, takes its
    // mailbox (xchg), loads the payload, stores its domain count (a hit: its own last write),
    // flushes, and decrements CPU 0's ack line; CPU 0's spin re-fetches it.
    EXPECT_EQ(f.warm, 4'223_ns);
}

TEST(NumaMulticast, the_initiator_sends_one_ipi_per_l3_domain_and_representatives_forward_the_rest) {
    MmWorld w("toy8", "numa-multicast");
    MmStruct& mm = w.mm->mm_alloc(0);
    const Flushes f = flush_twice(w, mm, {1, 2, 3, 4, 5, 6, 7});
    // CPU 0 sends to the representatives of {4,5}, {6,7}, {2,3} (farthest first) and forwards
    // to CPU 1 of its own domain: 4 IPIs where the ipi protocol sends 7 (one per target); each
    // representative forwards one. Four aggregate acknowledgements, one per domain.
    EXPECT_EQ(f.second.domain_requests, 3u);
    EXPECT_EQ(f.second.forwards, 4u);
    EXPECT_EQ(f.second.ipis, 7u);
    EXPECT_EQ(f.second.aggregate_acks, 4u);
    for (hw::CpuId c = 1; c < 8; ++c) {
        EXPECT_EQ(w.cpu(c).irqs_taken(), 2u) << "cpu" << c;
        EXPECT_EQ(w.mm->tlb(c).find(w.mm->loaded_pcid(c), kVa), nullptr) << "cpu" << c;
    }
    // The representatives forward in parallel; the last aggregate ack decides: 6335 ns, where
    // one cross-package target alone takes 4223 ns.
    EXPECT_EQ(f.warm, 6'335_ns);
}

TEST(NumaMulticast, a_lazy_representative_forwards_without_flushing_itself) {
    MmWorld w("toy8", "numa-multicast");
    MmStruct& mm = w.mm->mm_alloc(0);
    // CPU 4 is the first CPU of mm_cpumask in its domain, so it represents {4,5} although it is
    // lazy: the initiator reads no remote CPU's state to choose. should_flush_tlb() on CPU 4
    // skips its own flush; CPU 5 gets the forwarded request.
    const Flushes f = flush_twice(w, mm, {5}, {4});
    EXPECT_EQ(w.cpu(4).irqs_taken(), 2u);
    EXPECT_EQ(w.cpu(5).irqs_taken(), 2u);
    EXPECT_EQ(w.mm->tlb(5).find(w.mm->loaded_pcid(5), kVa), nullptr);
    EXPECT_NE(w.mm->tlb(4).find(w.mm->loaded_pcid(4), kVa), nullptr);  // lazy: flushed at switch-in
    EXPECT_EQ(f.second.domain_requests, 1u);                           // to CPU 4
    EXPECT_EQ(f.second.forwards, 1u);                                  // CPU 4 to CPU 5
    EXPECT_GT(f.warm, 4'223_ns);                                       // CPU 5's flush is one forward behind CPU 4
}

TEST(NumaMulticast, is_the_ipi_protocol_in_message_count_on_a_single_l3) {
    MmWorld w("toy4", "numa-multicast");
    MmStruct& mm = w.mm->mm_alloc(0);
    const Flushes f = flush_twice(w, mm, {1, 2, 3});
    EXPECT_EQ(f.second.domain_requests, 0u);  // its own domain: one forward per target
    EXPECT_EQ(f.second.forwards, 3u);
    for (hw::CpuId c = 1; c < 4; ++c) EXPECT_EQ(w.mm->tlb(c).find(w.mm->loaded_pcid(c), kVa), nullptr);
}
