// Intel RAR kernel side (kernel/rar): smp_call_rar_many() with the naive (RFC v4) and
// optimized (seed 000) send policies on machines/toy4.toml, with exact times where feasible.
//
// toy4: 1 GHz (1 cycle = 1 ns); CPUs 0,1 = cores 0,1 and CPUs 2,3 their SMT siblings; lines:
// l1_hit 1 ns, smt 10 ns, same_l3 50 ns, memory 100 ns; xAPIC MMIO: ICR read (one poll) 50 ns,
// ICR2 + ICR writes 50 ns each, ICR busy 200 ns + 50 ns per message in flight after each send;
// fabric 500 ns to any CPU, accept 20 ns; RAR: 64 slots (8 action words of 8 slots on one
// line per CPU), rar_per_payload 100 ns. Kernel path: smp_call_rar_many 80 cycles.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/table.h"
#include "hw/platform.h"
#include "kernel/kernel.h"
#include "kernel/rar/smp_call_rar.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using hw::CpuMask;
using sim::Picos;

namespace {

constexpr uint64_t kPage = 4096;
constexpr hw::Pcid kPcid = 5;

// "naive" (RFC v4) or "optimized" (seed 000), both with RFC v4's slots and order.
kernel::RarVariant rar_variant(const std::string& send) {
    if (send == "naive") return {kernel::rar_naive_send, kernel::cpu_number_placement};
    if (send == "optimized") return {kernel::rar_pending_send, kernel::cpu_number_placement};
    throw std::invalid_argument("no RAR send policy " + send);
}

struct World {
    sim::Engine eng;
    hw::MachineSpec spec;
    std::unique_ptr<hw::Platform> plat;
    std::unique_ptr<kernel::Kernel> k;
    std::unique_ptr<kernel::SmpCallRar> rar;
    World(const std::string& variant, const std::vector<std::string>& overrides = {}) {
        spec = test::load_test_machine("toy4", overrides);
        plat = std::make_unique<hw::Platform>(eng, spec);
        k = std::make_unique<kernel::Kernel>(*plat);
        rar =
            std::make_unique<kernel::SmpCallRar>(*plat, k->smp().cpu_online_mask(), k->irqchip(), rar_variant(variant));
    }
    ~World() {
        rar.reset();
        k.reset();
        plat.reset();
    }
    CpuMask mask(std::initializer_list<hw::CpuId> cpus) const { return CpuMask::of(spec.topology.nr_cpus(), cpus); }
};

}  // namespace

TEST(RarProtocol, a_naive_flush_to_three_targets_is_the_sum_of_its_steps) {
    World w("naive");
    for (hw::CpuId c = 1; c < 4; ++c) {
        w.plat->cpu(c).set_idle_state(0);  // POLL: the microcode starts at once
        w.plat->tlb(c).fill(kPcid, 7 * kPage, 0_ns);
        w.plat->tlb(c).fill(kPcid, 9 * kPage, 0_ns);
    }
    std::vector<Picos> durations;
    const CpuMask targets = w.mask({1, 2, 3});
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        for (int i = 0; i < 2; ++i) {
            const Picos start = w.eng.now();
            co_await w.rar->smp_call_rar_many(cpu, targets, kPcid, 7 * kPage, 8 * kPage);
            durations.push_back(w.eng.now() - start);
            co_await cpu.compute(10_us);  // every ICR and fabric slot idle again
        }
    });
    w.k->boot();
    w.eng.run_until(100_us);
    ASSERT_EQ(durations.size(), 2u);
    // The second call (warm lines), from its start on CPU 0:
    //     80  smp_call_rar_many path -> 80
    //   +  1  raw_spin_lock: cmpxchg on rar_locks[0], exclusive to CPU 0 since its unlock -> 81
    //   + 50  payload store: CPU 0 owns slot 0's line, CPUs 1-3 share it (same_l3 50) -> 131
    //   + 50 + 10 + 50  PENDING into the action lines of CPUs 1, 2 (SMT sibling), 3: CPU 0
    //         shares each with its CPU (its last poll), the write invalidates that copy -> 241
    //   xAPIC sends, target 1: one ICR poll 50, ICR2 50, ICR 50: leaves at 391 (ICR busy 200,
    //     nothing in flight: until 591), delivered 891;
    //   target 2: 4 polls (200) -> 591, writes -> 691 (busy 200 + 50 x 1 in flight: 941),
    //     delivered 1191; target 3: 5 polls (250) -> 941, writes -> 1041 (1 in flight), 1541.
    //   CPU 1's microcode from 891: action word from CPU 0 50, payload 50, work 100, SUCCESS
    //     store (invalidates CPU 0) 50 -> 1141, 7 more words (hits). CPU 0 polls from 1041 (hit,
    //     asleep), re-fetches the written line at 1141: 50 -> 1191.
    //   CPU 2 from 1191: 10 + 10 + 100 + 10 -> 1321; CPU 0's re-fetch 10 -> 1331.
    //   CPU 3 from 1541: 50 + 50 + 100 + 50 -> 1791; CPU 0's re-fetch 50 -> 1841.
    //   +  1  raw_spin_unlock: store, exclusive -> 1842.
    EXPECT_EQ(durations[1], 1842_ns);
    // The first call: the lock line (+99) and the payload line (+50) come from memory.
    EXPECT_EQ(durations[0], 1991_ns);
    for (hw::CpuId c = 1; c < 4; ++c) {
        EXPECT_EQ(w.plat->tlb(c).find(kPcid, 7 * kPage), nullptr) << "cpu" << c;
        EXPECT_EQ(w.rar->hardware().peek_action(c, 0), hw::kRarSuccess);
    }
    const kernel::RarCallStats& s = w.rar->stats();
    EXPECT_EQ(s.calls, 2u);
    EXPECT_EQ(s.ipis, 6u);
    EXPECT_EQ(s.slot_lock_waits, 0u);
    EXPECT_EQ(w.plat->cpu(1).irqs_taken(), 0u);  // microcode, no kernel handler
}

namespace {

struct StormResult {
    kernel::RarCallStats stats;
    int finished = 0;
    int unsuccessful_bytes = 0;
    size_t tlb_entries_left = 0;
};

// Every CPU flushes every other CPU, `rounds` times back to back, all starting together.
StormResult flush_storm(const std::string& variant, int rounds) {
    World w(variant);
    StormResult r;
    std::vector<CpuMask> others;
    for (hw::CpuId c = 0; c < 4; ++c) {
        CpuMask m = CpuMask::all(4);
        m.clear(c);
        others.push_back(m);
        w.plat->tlb(c).fill(kPcid, 3 * kPage, 0_ns);
    }
    for (hw::CpuId c = 0; c < 4; ++c) {
        w.k->run_on(c, [&, c](Cpu& cpu) -> sim::Task<> {
            for (int i = 0; i < rounds; ++i) {
                co_await w.rar->smp_call_rar_many(cpu, others[c], kPcid, 3 * kPage, 4 * kPage);
            }
            ++r.finished;
        });
    }
    w.k->boot();
    w.eng.run_until(10_ms);  // a deadlock would leave senders unfinished
    r.stats = w.rar->stats();
    for (hw::CpuId t = 0; t < 4; ++t) {
        for (hw::CpuId s = 0; s < 4; ++s) {
            if (s != t && w.rar->hardware().peek_action(t, w.rar->payload_slot(s)) != hw::kRarSuccess) {
                ++r.unsuccessful_bytes;
            }
        }
        r.tlb_entries_left += w.plat->tlb(t).size();
    }
    return r;
}

}  // namespace

TEST(RarProtocol, optimized_sends_fewer_rar_ipis_than_naive_when_every_cpu_flushes_the_others) {
    constexpr int kRounds = 50;
    const StormResult naive = flush_storm("naive", kRounds);
    const StormResult opt = flush_storm("optimized", kRounds);
    for (const StormResult* r : {&naive, &opt}) {
        EXPECT_EQ(r->finished, 4);  // every sender returned
        EXPECT_EQ(r->stats.calls, 4u * kRounds);
        EXPECT_EQ(r->stats.requests, 12u * kRounds);
        EXPECT_EQ(r->unsuccessful_bytes, 0);
        EXPECT_EQ(r->tlb_entries_left, 0u);
    }
    EXPECT_EQ(naive.stats.ipis, 12u * kRounds);  // one RAR IPI per target per call
    EXPECT_EQ(naive.stats.loop_backs, 0u);
    EXPECT_LT(opt.stats.ipis, naive.stats.ipis);
    EXPECT_GT(opt.stats.claims_lost, 0u);
    // Every request was served: by our own IPI (a claim) or by another sender's.
    EXPECT_EQ(opt.stats.ipis, opt.stats.claims);
    std::printf(
        "[ rar storm ] naive: %lu RAR IPIs; optimized: %lu RAR IPIs, %lu lost claims, %lu loop-backs, "
        "%lu unprocessed waits\n",
        static_cast<unsigned long>(naive.stats.ipis), static_cast<unsigned long>(opt.stats.ipis),
        static_cast<unsigned long>(opt.stats.claims_lost), static_cast<unsigned long>(opt.stats.loop_backs),
        static_cast<unsigned long>(opt.stats.unprocessed));
}

TEST(RarProtocol, two_senders_whose_cpus_share_a_payload_slot_serialize_on_its_lock) {
    World w("naive", {"tlb.rar_payloads=2"});  // CPUs 0 and 2 both use slot 0
    ASSERT_EQ(w.rar->rar_max_payloads(), 2u);
    EXPECT_EQ(w.rar->payload_slot(2), 0u);
    w.plat->cpu(1).set_idle_state(0);
    w.plat->tlb(1).fill(kPcid, 0, 0_ns);
    const CpuMask target = w.mask({1});
    std::vector<Picos> done(4);
    for (hw::CpuId c : {0u, 2u}) {
        w.k->run_on(c, [&, c](Cpu& cpu) -> sim::Task<> {
            if (c == 2) co_await cpu.compute(100_ns);  // CPU 0 takes the lock first
            co_await w.rar->smp_call_rar_many(cpu, target, kPcid, 0, kPage);
            done[c] = w.eng.now();
        });
    }
    w.k->boot();
    w.eng.run_until(100_us);
    ASSERT_GT(done[0], 0_ns);
    ASSERT_GT(done[2], 0_ns);
    const kernel::RarCallStats& s = w.rar->stats();
    EXPECT_EQ(s.slot_lock_waits, 1u);
    EXPECT_EQ(w.rar->rar_lock(0).stats().contended, 1u);
    EXPECT_EQ(w.rar->rar_lock(1).stats().acquisitions, 0u);
    // CPU 2 waits for the whole send-and-wait of CPU 0, then does its own.
    EXPECT_LT(done[0], done[2]);
    EXPECT_GT(s.slot_lock_spin, 1_us);
    EXPECT_GT(done[2] - done[0], 1_us);  // a full send + microcode + poll after the unlock
    EXPECT_EQ(w.rar->hardware().stats(1).payloads, 2u);
}

TEST(RarProtocol, a_naive_mask_with_the_sender_flushes_it_through_its_own_microcode) {
    World w("naive");
    w.plat->cpu(1).set_idle_state(0);
    for (hw::CpuId c : {0u, 1u}) w.plat->tlb(c).fill(kPcid, 0, 0_ns);
    const CpuMask both = w.mask({0, 1});
    bool returned = false;
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await w.rar->smp_call_rar_many(cpu, both, kPcid, 0, kPage);
        returned = true;
    });
    w.k->boot();
    w.eng.run_until(100_us);
    EXPECT_TRUE(returned);
    EXPECT_EQ(w.rar->stats().ipis, 2u);  // v4 keeps self in the destination
    EXPECT_EQ(w.rar->hardware().stats(0).payloads, 1u);
    EXPECT_EQ(w.plat->tlb(0).size(), 0u);
    EXPECT_EQ(w.plat->tlb(1).size(), 0u);
    EXPECT_EQ(w.plat->cpu(0).irqs_taken(), 0u);
}

namespace {

// CPU 1 flushes {2, 3} with CPU 2 asleep in C6 (100 us exit); CPU 3 (POLL) serves CPU 1's
// request at once. At 5 us CPU 0 flushes {3}. Returns CPU 0's call duration.
Picos flush_behind_a_sleeping_target(const std::string& variant, kernel::RarCallStats* stats) {
    World w(variant);
    w.plat->cpu(2).set_idle_state(2);
    w.plat->cpu(3).set_idle_state(0);
    const CpuMask slow = w.mask({2, 3});
    const CpuMask fast = w.mask({3});
    Picos took;
    w.k->run_on(1, [&](Cpu& cpu) -> sim::Task<> { co_await w.rar->smp_call_rar_many(cpu, slow, kPcid, 0, kPage); });
    w.k->run_on(0, [&](Cpu& cpu) -> sim::Task<> {
        co_await cpu.compute(5_us);
        const Picos start = w.eng.now();
        co_await w.rar->smp_call_rar_many(cpu, fast, kPcid, 0, kPage);
        took = w.eng.now() - start;
    });
    w.k->boot();
    w.eng.run_until(1_ms);
    *stats = w.rar->stats();
    return took;
}

}  // namespace

// Finding: rar_pending[t] stays claimed until its claimer's wait loop reaches t, and that loop
// waits on the claimer's targets in CPU order. A request written after t finished the
// claimer's one stays unprocessed (no IPI is sent for it) until the claimer is done with all
// its lower-numbered targets, however slow they are: here a C6 exit on another CPU.
TEST(RarProtocol, an_optimized_request_waits_for_the_claimers_slowest_earlier_target) {
    kernel::RarCallStats naive_stats;
    kernel::RarCallStats opt_stats;
    const Picos naive = flush_behind_a_sleeping_target("naive", &naive_stats);
    const Picos opt = flush_behind_a_sleeping_target("optimized", &opt_stats);
    EXPECT_LT(naive, 2_us);
    EXPECT_GT(opt, 90_us);  // CPU 1 reaches CPU 3 only after CPU 2's 100 us C6 exit
    EXPECT_EQ(opt_stats.claims_lost, 1u);
    EXPECT_EQ(opt_stats.unprocessed, 1u);
    EXPECT_EQ(opt_stats.loop_backs, 1u);  // then CPU 0 claims CPU 3 and sends its own IPI
    EXPECT_EQ(opt_stats.ipis, 3u);
    EXPECT_EQ(naive_stats.ipis, 3u);
    std::printf("[ rar behind C6 ] CPU 0's 1-target flush: naive %.3f us, optimized %.3f us\n",
                static_cast<double>(naive.count()) / 1e6, static_cast<double>(opt.count()) / 1e6);
}
