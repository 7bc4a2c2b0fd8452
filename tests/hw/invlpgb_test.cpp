// INVLPGB / TLBSYNC on toy4 (4 CPUs, fabric 500 ns to every CPU, invlpgb_issue 10 ns,
// tlbsync 1 us, invlpgb_count_max 8): broadcast at retirement, applied on every CPU after
// the one-way latency, complete after the ack, TLBSYNC = max(tlbsync, completion).
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/machine.h"
#include "hw/tlb/invlpgb.h"
#include "hw/tlb/tlb.h"
#include "sim/engine.h"
#include "sim/signal.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::InvlpgbOp;
using sim::Picos;

namespace {

constexpr uint64_t kPage = 4096;

struct Rig {
    hw::MachineSpec spec = ipisim::test::load_test_machine("toy4");
    sim::Engine eng;
    std::vector<std::unique_ptr<hw::Cpu>> cpus;
    std::vector<std::unique_ptr<hw::Tlb>> tlbs;
    std::unique_ptr<hw::Invlpgb> unit;

    Rig() { build(); }
    void build() {
        std::vector<hw::Tlb*> ptrs;
        for (hw::CpuId c = 0; c < spec.topology.nr_cpus(); ++c) {
            cpus.push_back(std::make_unique<hw::Cpu>(eng, c, spec));
            tlbs.push_back(std::make_unique<hw::Tlb>(c, spec.tlb.entries));
            ptrs.push_back(tlbs.back().get());
        }
        unit = std::make_unique<hw::Invlpgb>(eng, spec, ptrs);
    }
    // Runs `body` as the process of CPU 0 and every other CPU computing `busy`.
    void run(sim::Proc body, Picos busy = 5_us) {
        cpus[0]->set_running(&eng.spawn("cpu0", std::move(body)));
        for (size_t c = 1; c < cpus.size(); ++c) {
            auto worker = [](hw::Cpu& cpu, Picos t) -> sim::Proc { co_await cpu.compute(t); };
            cpus[c]->set_running(&eng.spawn("cpu" + std::to_string(c), worker(*cpus[c], busy)));
        }
        eng.run();
    }
};

// Records at `t` whether each CPU's TLB holds (pcid, va).
void probe_at(Rig& rig, Picos t, hw::Pcid pcid, uint64_t va, std::vector<std::vector<bool>>& out) {
    struct Ctx {
        Rig* rig;
        hw::Pcid pcid;
        uint64_t va;
        std::vector<std::vector<bool>>* out;
    };
    auto* ctx = new Ctx{&rig, pcid, va, &out};
    rig.eng.schedule_at(
        t,
        [](void* o, uint32_t) {
            auto* c = static_cast<Ctx*>(o);
            std::vector<bool> held;
            for (auto& tlb : c->rig->tlbs) held.push_back(tlb->find(c->pcid, c->va) != nullptr);
            c->out->push_back(held);
            delete c;
        },
        ctx, 0, 4242, sim::Priority::Normal);
}

}  // namespace

TEST(Invlpgb, removes_the_page_from_every_cpu_at_the_propagation_time_and_interrupts_no_one) {
    Rig rig;
    for (auto& tlb : rig.tlbs) {
        tlb->fill(1, 5 * kPage, 0_ns);
        tlb->fill(1, 6 * kPage, 0_ns);
    }
    std::vector<std::vector<bool>> seen;
    probe_at(rig, 509_ns, 1, 5 * kPage, seen);
    probe_at(rig, 510_ns, 1, 5 * kPage, seen);  // issue 10 ns + fabric 500 ns
    auto body = [&]() -> sim::Proc {
        co_await rig.unit->invlpgb(*rig.cpus[0], InvlpgbOp::user_nr(1, 5 * kPage, 1, false));
        EXPECT_EQ(rig.eng.now(), 10_ns);  // asynchronous: retires after the issue cost
    };
    rig.run(body());
    EXPECT_EQ(seen, (std::vector<std::vector<bool>>{{true, true, true, true}, {false, false, false, false}}));
    for (size_t c = 0; c < rig.cpus.size(); ++c) {
        EXPECT_NE(rig.tlbs[c]->find(1, 6 * kPage), nullptr) << c;
        EXPECT_EQ(rig.cpus[c]->irqs_taken(), 0u) << c;
    }
    EXPECT_EQ(rig.eng.now(), 5_us);  // the remote computes lost no time
    EXPECT_EQ(rig.unit->completion_time(0), 1010_ns);
    EXPECT_EQ(rig.unit->stats().invlpgb, 1u);
    EXPECT_EQ(rig.unit->stats().applied, 4u);
}

TEST(Invlpgb, tlbsync_returns_exactly_when_the_issuers_invlpgbs_have_completed) {
    Rig rig;
    rig.spec.tlb.tlbsync = 100_ns;  // completion (1010 ns) dominates the instruction latency
    rig.cpus.clear();
    rig.tlbs.clear();
    rig.build();
    for (auto& tlb : rig.tlbs) tlb->fill(1, 5 * kPage, 0_ns);
    Picos synced;
    auto body = [&]() -> sim::Proc {
        auto& cpu = *rig.cpus[0];
        co_await rig.unit->invlpgb(cpu, InvlpgbOp::user_nr(1, 5 * kPage, 8, false));
        co_await cpu.compute(200_ns);
        co_await rig.unit->invlpgb(cpu, InvlpgbOp::single_pcid(1));  // sent at 220 ns
        co_await rig.unit->tlbsync(cpu);
        synced = rig.eng.now();
        for (auto& tlb : rig.tlbs) EXPECT_EQ(tlb->size(), 0u);
    };
    rig.run(body());
    EXPECT_EQ(synced, 220_ns + 1000_ns);
    EXPECT_EQ(rig.unit->stats().tlbsync_stall, 1220_ns - 220_ns);
}

TEST(Invlpgb, tlbsync_costs_its_own_latency_when_nothing_is_outstanding) {
    Rig rig;
    Picos synced;
    auto body = [&]() -> sim::Proc {
        co_await rig.unit->invlpgb(*rig.cpus[0], InvlpgbOp::all());
        co_await rig.cpus[0]->compute(2_us);  // complete at 1010 ns
        co_await rig.unit->tlbsync(*rig.cpus[0]);
        synced = rig.eng.now();
    };
    rig.run(body());
    EXPECT_EQ(synced, 2010_ns + 1_us);
}

TEST(Invlpgb, tlbsync_waits_only_for_the_invlpgbs_of_its_own_cpu) {
    Rig rig;
    Picos synced;
    auto other = [&]() -> sim::Proc {
        co_await rig.cpus[1]->compute(500_ns);
        co_await rig.unit->invlpgb(*rig.cpus[1], InvlpgbOp::all_nonglobals());  // done at 1510 ns
    };
    rig.cpus[1]->set_running(&rig.eng.spawn("cpu1", other()));
    auto body = [&]() -> sim::Proc {
        co_await rig.unit->tlbsync(*rig.cpus[0]);
        synced = rig.eng.now();
    };
    rig.cpus[0]->set_running(&rig.eng.spawn("cpu0", body()));
    rig.eng.run();
    EXPECT_EQ(synced, 1_us);
    EXPECT_EQ(rig.unit->completion_time(1), 1510_ns);
}

TEST(Invlpgb, an_invlpgb_larger_than_invlpgb_count_max_is_rejected) {
    Rig rig;
    bool threw = false;
    auto body = [&]() -> sim::Proc {
        try {
            co_await rig.unit->invlpgb(*rig.cpus[0], InvlpgbOp::user_nr(1, 0, 9, false));
        } catch (const std::logic_error&) {
            threw = true;
        }
    };
    rig.cpus[0]->set_running(&rig.eng.spawn("cpu0", body()));
    rig.eng.run();
    EXPECT_TRUE(threw);
    EXPECT_EQ(rig.unit->stats().invlpgb, 0u);
}

TEST(Invlpgb, the_operand_forms_remove_what_the_kernel_helpers_mean) {
    hw::Tlb tlb(0, 64);
    auto fill = [&] {
        tlb.fill(1, 0, 0_ns);
        tlb.fill(2, 0, 0_ns);
        tlb.fill(1, 4 << 20, 0_ns, hw::PageSize::size_2m);
        tlb.fill(0, 0, 0_ns, hw::PageSize::size_4k, true);
    };
    fill();
    EXPECT_EQ(tlb.invalidate(InvlpgbOp::user_nr(1, 4 << 20, 1, true).invalidation()), 1u);
    EXPECT_EQ(tlb.invalidate(InvlpgbOp::single_pcid(2).invalidation()), 1u);
    EXPECT_EQ(tlb.invalidate(InvlpgbOp::kernel_addr(0, 1).invalidation()), 2u);  // PCID 1 + global
    fill();
    EXPECT_EQ(tlb.invalidate(InvlpgbOp::all_nonglobals().invalidation()), 3u);
    EXPECT_EQ(tlb.invalidate(InvlpgbOp::all().invalidation()), 1u);
}

TEST(Invlpgb, a_machine_without_invlpgb_rejects_the_instruction) {
    Rig rig;
    rig.spec.tlb.invlpgb_count_max = 0;
    bool threw = false;
    auto body = [&]() -> sim::Proc {
        try {
            co_await rig.unit->invlpgb(*rig.cpus[0], InvlpgbOp::all());
        } catch (const std::logic_error&) {
            threw = true;
        }
    };
    rig.cpus[0]->set_running(&rig.eng.spawn("cpu0", body()));
    rig.eng.run();
    EXPECT_TRUE(threw);
}
