// Conformance of every registered TLB flush protocol: the test enumerates
// Registry<TlbFlushProtocol>, so a new protocol goes through it without an edit here. On every
// toy machine its machine_support() accepts, every CPU runs one mm and, round after round,
// touches a few shared pages (fills their translations) and flushes one of them, or, every
// fourth round, the whole mm with its page tables freed (munmap). Then:
//   - every CPU finishes its rounds (no flush hangs);
//   - when the memory the flush protects is released (Mm::tlb_release() right after the flush:
//     at once for eager protocols, once every target applied it for lazy ones such as latr),
//     no CPU of mm_cpumask still holds, under the PCID it runs the mm with, a translation of a
//     flushed page filled before the flush began; every flush's release happens;
//   - a second run gives the same fingerprint and the same counts;
//   - every profile label the flush paths charged time to carries a category (a protocol's
//     own labels count as TLB invalidation time only when tagged);
//   - `ipisim check`'s schedule exploration (check_stress with the monitors, perturbed) finds no
//     violation in 10 seeds on each toy machine it accepts (docs/checker.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "check/explore.h"
#include "check/mutants.h"
#include "kernel/mm/mm.h"
#include "mm_world.h"
#include "sim/registry.h"
#include "support/paths.h"
#include "support/test_machine.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SHIFT;
using kernel::mm::PAGE_SIZE;
using kernel::mm::TLB_FLUSH_ALL;
using mmtest::MmWorld;

namespace {

constexpr int kRounds = 24;
constexpr uint64_t kPages = 4;
constexpr uint64_t kBase = 0x7f0000000000ULL;

struct Outcome {
    int finished = 0;
    uint64_t flushes = 0;
    uint64_t released = 0;    // releases after the flushes (tlb_release), lazy ones included
    uint64_t violations = 0;  // (flush, CPU, page) with a translation left behind
    std::string first_violation;
    uint64_t broadcasts = 0;  // flushes of an mm with a global ASID (path (a) unless a trim round)
    uint64_t fingerprint = 0;
    sim::Picos end;  // when the last CPU finished
    std::set<std::string> untagged;
};

// Every CPU of mm_cpumask running `mm` must have lost its translations of [start, end) filled
// before `began`.
void check_flushed(MmWorld& w, MmStruct& mm, uint64_t start, uint64_t end, sim::Picos began, Cpu& initiator,
                   Outcome& out) {
    for (hw::CpuId c = 0; c < w.plat->nr_cpus(); ++c) {
        if ((mm.cpumask[c / 64]->peek() >> (c % 64) & 1) == 0) continue;
        EXPECT_EQ(w.mm->loaded_mm(c), mm.id) << "cpu" << c << " left the mm: the scenario never switches";
        for (uint64_t va = start; va < end; va += PAGE_SIZE) {
            if (!w.mm->tlb(c).holds_filled_before(w.mm->loaded_pcid(c), va, began)) continue;
            if (out.violations++ == 0) {
                out.first_violation = "cpu" + std::to_string(c) + " kept page " + std::to_string((va - kBase) >> 12) +
                                      " after cpu" + std::to_string(initiator.id()) + "'s flush from " +
                                      std::to_string(began.count()) + " ps returned at " +
                                      std::to_string(initiator.now().count()) + " ps";
            }
        }
    }
}

// Two broken protocols, registered for the tests below only (the enumeration skips them):
// path (b) flushes the initiator alone; a protocol charging time to a label of its own that it
// did not tag.
constexpr std::string_view kMutant = "conformance-mutant-";

// Protocols only tests register: this file's mutants, the checker's, and other tests' own
// ("test-" names, e.g. progress_test's test-poll-forever, which never returns: in a run of the
// whole test binary in one process it is registered before these tests iterate the registry).
bool is_test_protocol(const std::string& name) {
    return name.starts_with(kMutant) || name.starts_with("test-") || check::is_mutant(name);
}

class LocalOnlyFlush final : public kernel::TlbFlushProtocol {
public:
    sim::Task<> flush_tlb_multi(Cpu& self, const hw::CpuMask& cpumask, const kernel::mm::FlushTlbInfo& info) override {
        if (!cpumask.test(self.id())) co_return;
        self.local_irq_disable();
        co_await mm().flush_tlb_func(self, info);
        co_await self.local_irq_enable();
    }
};
const sim::Registration<kernel::TlbFlushProtocol, LocalOnlyFlush> local_only("tlb_flush",
                                                                             "conformance-mutant-local-only",
                                                                             "test mutant: flushes only the initiator");

class UntaggedLabelFlush final : public kernel::TlbFlushProtocol {
public:
    sim::Task<> flush_tlb_multi(Cpu& self, const hw::CpuMask& cpumask, const kernel::mm::FlushTlbInfo& info) override {
        static const uint32_t label = hw::profile_label("conformance_mutant_flush_tlb_multi");
        auto scope = self.function(label, hw::Activity::kernel);
        co_await self.compute(100_ns);
        co_await mm().native_flush_tlb_multi(self, cpumask, info);
    }
};
const sim::Registration<kernel::TlbFlushProtocol, UntaggedLabelFlush> untagged(
    "tlb_flush", "conformance-mutant-untagged-label", "test mutant: an untagged profile label");

Outcome run(const std::string& protocol, const std::string& machine) {
    MmWorld w(machine, protocol);
    Outcome out;
    MmStruct& mm = w.mm->mm_alloc(0);
    const uint32_t n = w.plat->nr_cpus();
    const uint32_t label = hw::profile_label("conformance.user");
    for (hw::CpuId c = 0; c < n; ++c) {
        w.k->run_on(c, [&w, &mm, &out, c, label](Cpu& cpu) -> sim::Task<> {
            auto scope = cpu.function(label, hw::Activity::user);
            co_await w.mm->switch_mm_irqs_off(cpu, mm);
            for (int i = 0; i < kRounds; ++i) {
                for (uint64_t p = 0; p < kPages; ++p)
                    w.mm->tlb(c).fill(w.mm->loaded_pcid(c), kBase + p * PAGE_SIZE, cpu.now());
                // Rounds start apart, in a pattern that differs per CPU and round.
                co_await cpu.compute(sim::Picos(((c * 7 + static_cast<uint64_t>(i) * 13) % 11) * 100'000));
                const bool munmap = i % 4 == 3;
                const uint64_t start = munmap ? kBase : kBase + ((c + static_cast<uint64_t>(i)) % kPages) * PAGE_SIZE;
                const uint64_t end = munmap ? kBase + kPages * PAGE_SIZE : start + PAGE_SIZE;
                const sim::Picos began = cpu.now();
                if (w.mm->protocol().uses_broadcast(mm)) ++out.broadcasts;
                co_await w.mm->flush_tlb_mm_range(cpu, mm, munmap ? 0 : start, munmap ? TLB_FLUSH_ALL : end, PAGE_SHIFT,
                                                  munmap);
                ++out.flushes;
                // tlb_finish_mmu's release: at once for eager protocols, after every target
                // applied the flush for lazy ones; the check runs when the memory is released.
                kernel::mm::TlbRelease release;
                release.mm = &mm;
                release.start = start;
                release.end = end;
                release.freed_tables = munmap;
                release.zapper = c;
                release.released = [&w, &mm, &out, start, end, began](Cpu& on) {
                    ++out.released;
                    check_flushed(w, mm, start, end, began, on, out);
                };
                co_await w.mm->tlb_release(cpu, std::move(release));
            }
            ++out.finished;
            out.end = std::max(out.end, cpu.now());
        });
    }
    w.k->boot();
    w.eng.run_until(50_ms);
    out.fingerprint = w.eng.fingerprint();
    // Labels outside the flush paths: the test's own, idle, and the context switch (also run
    // by flush_tlb_func when a CPU moves to a global ASID; not flush time, as in tlb_flush2).
    const std::set<std::string> allowed = {"(none)", "cpuidle", "conformance.user", "switch_mm_irqs_off"};
    for (hw::CpuId c = 0; c < n; ++c) {
        hw::CpuProfile& prof = w.plat->cpu(c).profile();
        prof.settle(w.eng.now());
        for (uint32_t l = 0; l < prof.nr_labels(); ++l) {
            if (prof.time_in_label(l) == sim::Picos::zero()) continue;
            const std::string& name = hw::profile_label_name(l);
            if (allowed.count(name) == 0 && hw::profile_label_category(l) == hw::LabelCategory::none) {
                out.untagged.insert(name);
            }
        }
    }
    return out;
}

}  // namespace

TEST(TlbFlushConformance, every_registered_protocol_leaves_no_flushed_translation_behind_and_is_deterministic) {
    const std::string machines = ipisim::test::source_path("machines");
    for (const auto* entry : sim::Registry<kernel::TlbFlushProtocol>::instance().entries()) {
        if (is_test_protocol(entry->name)) continue;
        int machines_run = 0;
        for (const char* machine : {"toy2", "toy4", "toy8", "toy4_arm"}) {
            if (!entry->factory()->machine_support(hw::load_machine_by_name(machines, machine)).empty()) continue;
            ++machines_run;
            SCOPED_TRACE(entry->name + " on " + machine);
            const Outcome a = run(entry->name, machine);
            const uint32_t n = hw::load_machine_by_name(machines, machine).topology.nr_cpus();
            EXPECT_EQ(a.finished, static_cast<int>(n));
            EXPECT_EQ(a.flushes, static_cast<uint64_t>(n) * kRounds);
            EXPECT_EQ(a.released, a.flushes);
            EXPECT_EQ(a.violations, 0u) << a.first_violation;
            EXPECT_EQ(a.untagged, std::set<std::string>{});
            const Outcome b = run(entry->name, machine);
            EXPECT_EQ(a.fingerprint, b.fingerprint);
            EXPECT_EQ(a.end, b.end);
            EXPECT_EQ(a.broadcasts, b.broadcasts);
            std::printf("[ conformance ] %-14s %-5s %3lu flushes (%3lu by broadcast), fingerprint %016lx\n",
                        entry->name.c_str(), machine, static_cast<unsigned long>(a.flushes),
                        static_cast<unsigned long>(a.broadcasts), static_cast<unsigned long>(a.fingerprint));
        }
        EXPECT_GT(machines_run, 0) << entry->name << ": no toy machine supports it";
    }
}

TEST(TlbFlushConformance, a_protocol_that_flushes_only_the_initiator_leaves_translations_behind) {
    const Outcome o = run("conformance-mutant-local-only", "toy4");
    EXPECT_EQ(o.finished, 4);
    EXPECT_GT(o.violations, 0u);
    EXPECT_NE(o.first_violation.find("kept page"), std::string::npos) << o.first_violation;
}

TEST(TlbFlushConformance, a_protocol_charging_time_to_an_untagged_label_is_named) {
    const Outcome o = run("conformance-mutant-untagged-label", "toy4");
    EXPECT_EQ(o.violations, 0u) << o.first_violation;
    EXPECT_EQ(o.untagged, std::set<std::string>{"conformance_mutant_flush_tlb_multi"});
}

TEST(TlbFlushConformance, every_registered_protocol_passes_the_checker_on_every_toy_machine_it_supports) {
    check::register_mutants();
    const std::string machines = ipisim::test::source_path("machines");
    for (const auto* entry : sim::Registry<kernel::TlbFlushProtocol>::instance().entries()) {
        if (is_test_protocol(entry->name)) continue;
        int machines_run = 0;
        for (const char* machine : {"toy4", "toy8"}) {
            check::ExploreSpec ex;
            ex.base.protocol = entry->name;
            ex.base.machine = hw::load_machine_by_name(machines, machine);
            if (!kernel::tlb_flush_protocol_check(entry->name, ex.base.machine).empty()) continue;
            ++machines_run;
            SCOPED_TRACE(entry->name + " on " + machine);
            ex.seeds = 10;
            const check::ExploreResult r = check::explore(ex);
            EXPECT_FALSE(r.failing_seed.has_value())
                << "seed " << r.failing_seed.value_or(0) << ": "
                << (r.failure.violations.empty() ? "" : r.failure.violations.front().diagnosis);
            EXPECT_EQ(r.seeds_run, 10u);
        }
        EXPECT_GT(machines_run, 0) << entry->name << ": no toy machine supports it";
    }
}

TEST(TlbFlushConformance, the_checker_catches_the_conformance_mutant_that_flushes_only_the_initiator) {
    check::ExploreSpec ex;
    ex.base.protocol = "conformance-mutant-local-only";
    ex.base.machine = ipisim::test::load_test_machine("toy4");
    ex.seeds = 5;
    const check::ExploreResult r = check::explore(ex);
    ASSERT_TRUE(r.failing_seed.has_value());
    EXPECT_EQ(r.failure.violations.front().kind, check::ViolationKind::stale_translation);
}
