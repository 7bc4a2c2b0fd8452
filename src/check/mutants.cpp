#include "check/mutants.h"

#include <algorithm>
#include <memory>

#include "kernel/mm/locks.h"
#include "kernel/mm/mm.h"
#include "kernel/tlbflush/global_asid.h"
#include "kernel/tlbflush/invlpgb.h"
#include "kernel/tlbflush/rar_flush.h"
#include "kernel/tlbflush/tlb_flush_protocol.h"
#include "sim/registry.h"

namespace ipisim::check {

namespace {

using hw::Cpu;
using kernel::mm::FlushTlbInfo;

constexpr hw::LabelCategory kFlush = hw::LabelCategory::tlb_invalidation;

class LocalOnly final : public kernel::TlbFlushProtocol {
public:
    sim::Task<> flush_tlb_multi(Cpu& self, const hw::CpuMask& cpumask, const FlushTlbInfo& info) override {
        if (!cpumask.test(self.id())) co_return;
        self.local_irq_disable();
        co_await mm().flush_tlb_func(self, info);
        co_await self.local_irq_enable();
    }
};

class NoWait final : public kernel::TlbFlushProtocol {
public:
    sim::Task<> flush_tlb_multi(Cpu& self, const hw::CpuMask& cpumask, const FlushTlbInfo& info) override {
        static const uint32_t label = hw::profile_label("native_flush_tlb_multi", kFlush);
        auto scope = self.function(label, hw::Activity::kernel);
        kernel::mm::Mm& m = mm();
        kernel::SmpCallFunc func = [&m, &info](Cpu& c) { return m.flush_tlb_func(c, info); };
        kernel::SmpCondFunc cond = [&m, &info](Cpu& s, hw::CpuId t) { return m.should_flush_tlb(s, t, info); };
        co_await m.smp().on_each_cpu_cond_mask(self, cond, func, /*wait=*/false, cpumask);
    }
};

class SkipLazyFreed final : public kernel::TlbFlushProtocol {
public:
    // Always on_each_cpu_cond_mask(should_flush_tlb): lazy CPUs are skipped even when page
    // tables were freed.
    sim::Task<bool> ipi_flush_must_reach_all(Cpu& /*self*/, const FlushTlbInfo& /*info*/) override { co_return false; }
};

class AbbaDeadlock final : public kernel::TlbFlushProtocol {
public:
    void attach(kernel::mm::Mm& m) override {
        TlbFlushProtocol::attach(m);
        a_ = std::make_unique<kernel::mm::SpinLock>(m.mem(), "abba_lock_a", 0, m.nr_cpus());
        b_ = std::make_unique<kernel::mm::SpinLock>(m.mem(), "abba_lock_b", 0, m.nr_cpus());
    }
    sim::Task<> flush_tlb_multi(Cpu& self, const hw::CpuMask& cpumask, const FlushTlbInfo& info) override {
        static const uint32_t label = hw::profile_label("abba_flush_tlb_multi", kFlush);
        {
            auto scope = self.function(label, hw::Activity::kernel);
            kernel::mm::SpinLock& first = self.id() % 2 == 0 ? *a_ : *b_;
            kernel::mm::SpinLock& second = self.id() % 2 == 0 ? *b_ : *a_;
            self.local_irq_disable();
            co_await first.lock(self);
            co_await self.compute(sim::Picos(500'000));
            co_await second.lock(self);
            co_await self.compute(sim::Picos(200'000));
            co_await second.unlock(self);
            co_await first.unlock(self);
            co_await self.local_irq_enable();
        }
        co_await mm().native_flush_tlb_multi(self, cpumask, info);
    }

private:
    std::unique_ptr<kernel::mm::SpinLock> a_;
    std::unique_ptr<kernel::mm::SpinLock> b_;
};

// The IPI flush, on a smp layer whose llist_add() result is ignored when the queue was empty:
// the first CSD queued on a CPU gets no IPI (and those queued behind it rely on that IPI).
class LlistNoEmptyCheck final : public kernel::TlbFlushProtocol {
public:
    void attach(kernel::mm::Mm& m) override {
        TlbFlushProtocol::attach(m);
        m.smp().set_llist_no_empty_check(true);
    }
};

// The IPI flush, on a kernel whose switch_mm_irqs_off() to another mm reads tlb_gen without a
// barrier after its LOADED_MM_SWITCHING store when its bit is already in mm_cpumask: the lazy
// mm_cpumask of 6.14 before 83b0177a6c48 ("x86/mm: Fix SMP ordering in switch_mm_irqs_off()",
// reported by Stephen Dolan). With store buffers the tlb_gen read can pass the store, and a
// flusher that reads loaded_mm meanwhile sees the old mm: neither side flushes.
class SwitchMmNoSmpMb final : public kernel::TlbFlushProtocol {
public:
    void attach(kernel::mm::Mm& m) override {
        TlbFlushProtocol::attach(m);
        m.set_switch_mm_skips_smp_mb(true);
    }
};

// The INVLPGB flush whose broadcast_tlb_flush() returns without TLBSYNC.
class InvlpgbNoTlbsync final : public kernel::InvlpgbFlush {
protected:
    sim::Task<> __tlbsync(Cpu& /*self*/) override { co_return; }
};

// The INVLPGB flush whose reset_global_asid_space() skips invlpgb_flush_all_nonglobals():
// freed global ASIDs are handed out again with the old mm's translations still cached.
class AsidReuseNoFlush final : public kernel::InvlpgbFlush {
public:
    void attach(kernel::mm::Mm& m) override {
        InvlpgbFlush::attach(m);
        asids_ = std::make_unique<kernel::GlobalAsids>(
            m.mem(), [](Cpu& /*cpu*/) -> sim::Task<> { co_return; }, m.nr_dyn_asids());
    }
};

template <class Impl>
void add(const char* name, const char* description) {
    auto& r = sim::Registry<kernel::TlbFlushProtocol>::instance();
    if (!r.contains(name)) r.add(name, description, [] { return std::make_unique<Impl>(); });
}

}  // namespace

const std::vector<std::string>& mutant_names() {
    static const std::vector<std::string> names = {
        "abba-deadlock",       "asid-reuse-no-flush",  "invlpgb-no-tlbsync",   "ipi-local-only",     "ipi-no-wait",
        "ipi-skip-lazy-freed", "llist-no-empty-check", "rar-optimized-noloop", "switch-mm-no-smp-mb"};
    return names;
}

bool is_mutant(const std::string& name) {
    const auto& n = mutant_names();
    return std::find(n.begin(), n.end(), name) != n.end();
}

void register_mutants() {
    add<LocalOnly>("ipi-local-only", "checker mutant: path (b) flushes the initiator only");
    add<NoWait>("ipi-no-wait", "checker mutant: the IPI flush returns before the targets flushed");
    add<SkipLazyFreed>("ipi-skip-lazy-freed", "checker mutant: skips lazy CPUs although page tables were freed");
    add<AbbaDeadlock>("abba-deadlock", "checker mutant: two locks in opposite orders with IRQs off");
    add<LlistNoEmptyCheck>("llist-no-empty-check",
                           "checker mutant: a CSD queued on an empty call_single_queue gets no IPI");
    add<AsidReuseNoFlush>("asid-reuse-no-flush",
                          "checker mutant: the global ASID space wraps without the flush of every PCID");
    add<SwitchMmNoSmpMb>("switch-mm-no-smp-mb",
                         "checker mutant: switch_mm_irqs_off without the smp_mb fixed by 83b0177a6c48 (6.14-6.17)");
    add<InvlpgbNoTlbsync>("invlpgb-no-tlbsync", "checker mutant: the INVLPGB flush returns without TLBSYNC");
    auto& r = sim::Registry<kernel::TlbFlushProtocol>::instance();
    if (!r.contains("rar-optimized-noloop")) {
        r.add("rar-optimized-noloop", "checker mutant: seed 000's rar_pending smp_call_rar_many without its loop-back",
              [] {
                  return std::make_unique<kernel::RarFlush>(
                      kernel::RarVariant{kernel::rar_pending_send_noloop, kernel::cpu_number_placement});
              });
    }
}

}  // namespace ipisim::check
