// The flushing half of arch/x86/mm/tlb.c (docs/mechanisms.md §2.4, 2.6, 2.7): flush_tlb_mm_range()
// as initiator, native_flush_tlb_multi() as the IPI path every protocol shares,
// should_flush_tlb() as the sender-side filter, flush_tlb_func() as the handler run locally and
// on every target, with the generation logic that coalesces concurrent flushes.
#include <fmt/format.h>

#include "hw/check_hooks.h"
#include "hw/observer.h"
#include "hw/tlb/tlb_insn.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"

namespace ipisim::kernel::mm {

namespace {
// tlb_single_page_flush_ceiling (Dave Hansen, a5102476a24b): pages, tunable in debugfs.
constexpr uint64_t kTlbSinglePageFlushCeiling = 33;
}  // namespace

sim::Task<hw::CpuMask> Mm::read_mm_cpumask(hw::Cpu& cpu, MmStruct& mm) {
    hw::CpuMask mask(nr_cpus_);
    for (size_t w = 0; w < mm.cpumask.size(); ++w) {
        uint64_t bits = co_await mem_.load(cpu.id(), *mm.cpumask[w]);
        for (; bits != 0; bits &= bits - 1) {
            const auto c = static_cast<hw::CpuId>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
            if (c < nr_cpus_) mask.set(c);
        }
    }
    co_return mask;
}

sim::Task<bool> Mm::should_trim_cpumask(hw::Cpu& cpu, MmStruct& mm) {
    if (!lazy_mm_cpumask_) co_return false;  // before 6.14 the switch keeps the mask exact
    const uint64_t next = co_await mem_.load(cpu.id(), *mm.next_trim_cpumask);
    if (jiffies() > next) {  // time_after(jiffies, next_trim_cpumask)
        co_await mem_.store(cpu.id(), *mm.next_trim_cpumask, jiffies() + hz());
        ++flush_stats_.trims;
        co_return true;
    }
    co_return false;
}

sim::Task<> Mm::flush_tlb_mm_range(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end, unsigned stride_shift,
                                   bool freed_tables, TlbFlushReason reason) {
    static const uint32_t label = hw::profile_label("flush_tlb_mm_range", hw::LabelCategory::tlb_invalidation);
    auto scope = cpu.function(label, hw::Activity::kernel);
    const hw::CpuId me = cpu.id();
    const sim::Picos began = cpu.now();
    ++flush_stats_.flush_tlb_mm_range;
    co_await cpu.compute_cycles(costs::flush_tlb_mm_range);
    // Should we flush just the requested range?
    if (end == TLB_FLUSH_ALL || ((end - start) >> stride_shift) > kTlbSinglePageFlushCeiling) {
        start = 0;
        end = TLB_FLUSH_ALL;
        ++flush_stats_.full_range;
    }
    // inc_mm_tlb_gen(): atomic64_inc_return, a full barrier on the mm's shared line.
    const uint64_t new_tlb_gen = co_await mem_.fetch_add(me, *mm.tlb_gen, 1) + 1;
    // get_flush_tlb_info(): this CPU's flush_tlb_info.
    FlushTlbInfo& info = flush_info_[me];
    info.mm = &mm;
    info.start = start;
    info.end = end;
    info.new_tlb_gen = new_tlb_gen;
    info.initiating_cpu = me;
    info.stride_shift = stride_shift;
    info.freed_tables = freed_tables;
    info.trim_cpumask = false;
    info.reason = reason;
    co_await mem_.store(me, *info.line, new_tlb_gen);

    bool broadcast = protocol_->uses_broadcast(mm);
    bool trim_checked = false;
    if (broadcast && global_asid_flavour_ == GlobalAsidFlavour::mm_cpumask) {
        // RAR: periodic trimming of mm_cpumask still uses IPIs (path (b)).
        info.trim_cpumask = co_await should_trim_cpumask(cpu, mm);
        trim_checked = true;
        broadcast = !info.trim_cpumask;
    }
    if (broadcast) {
        co_await protocol_->broadcast_tlb_flush(cpu, info);
    } else {
        hw::CpuMask cpumask = co_await read_mm_cpumask(cpu, mm);
        hw::CpuMask others = cpumask;
        others.clear(me);
        if (!others.empty()) {  // cpumask_any_but(mm_cpumask(mm), cpu) < nr_cpu_ids
            if (!trim_checked) info.trim_cpumask = co_await should_trim_cpumask(cpu, mm);
            ++flush_stats_.remote_flushes;
            co_await protocol_->flush_tlb_multi(cpu, cpumask, info);
            co_await protocol_->consider_global_asid(cpu, mm);
        } else {
            const uint64_t loaded = co_await mem_.load(me, *tlbstate_[me].loaded_mm);
            if (loaded == mm.id) {
                ++flush_stats_.local_flushes;
                cpu.local_irq_disable();
                co_await flush_tlb_func(cpu, info);
                co_await cpu.local_irq_enable();
            }
        }
    }
    // put_flush_tlb_info(), put_cpu(); mmu_notifier_arch_invalidate_secondary_tlbs: no IOMMU.
    IPISIM_CHECK_HOOK(flush_returned(me, mm.id, start, end, began));
    hw::record_latency("flush_tlb_mm_range", cpu.now() - began);
}

sim::Task<> Mm::tlb_release(hw::Cpu& cpu, TlbRelease r) {
    if (protocol_->defers_release()) {
        const bool deferred = co_await protocol_->defer_release(cpu, r);
        if (deferred) co_return;
    }
    co_await release_now(cpu, r);
}

sim::Task<> Mm::release_now(hw::Cpu& cpu, TlbRelease& r) {
    if (r.cleared != 0 || r.freed_tables) {
        IPISIM_CHECK_HOOK(pages_released(r.zapper, r.mm->id, r.start, r.end, r.freed_tables, r.zapped));
    }
    if (r.unmapped_va) r.mm->lazy_unmapped.erase(r.start);
    co_await lru_->folios_put(cpu, r.folios);
    if (r.released) r.released(cpu);
}

sim::Task<> Mm::native_flush_tlb_multi(hw::Cpu& cpu, const hw::CpuMask& cpumask, const FlushTlbInfo& info) {
    static const uint32_t label = hw::profile_label("native_flush_tlb_multi", hw::LabelCategory::tlb_invalidation);
    auto scope = cpu.function(label, hw::Activity::kernel);
    SmpCallFunc func = [this, &info](hw::Cpu& c) { return flush_tlb_func(c, info); };
    const bool all = co_await protocol_->ipi_flush_must_reach_all(cpu, info);
    if (all) {
        // on_each_cpu_mask(cpumask, flush_tlb_func, info, true): lazy CPUs included.
        co_await smp().on_each_cpu_cond_mask(cpu, nullptr, func, true, cpumask);
    } else {
        SmpCondFunc cond = [this, &info](hw::Cpu& s, hw::CpuId t) { return should_flush_tlb(s, t, info); };
        co_await smp().on_each_cpu_cond_mask(cpu, cond, func, true, cpumask);
    }
}

sim::Task<bool> Mm::should_flush_tlb(hw::Cpu& self, hw::CpuId cpu, const FlushTlbInfo& info) {
    const hw::CpuId me = self.id();
    CpuTlbState& st = tlbstate_[cpu];
    co_await self.compute_cycles(costs::should_flush_tlb);
    // per_cpu(cpu_tlbstate.loaded_mm, cpu), then per_cpu(cpu_tlbstate_shared.is_lazy, cpu) after
    // smp_rmb() (a compiler barrier on x86: loads stay in order, and issue together).
    const auto [loaded, lazy] = co_await mem_.loads(me, st.loaded_mm, st.is_lazy);
    if (lazy != 0) co_return false;          // flushed at its next context switch
    if (info.mm == nullptr) co_return true;  // kernel flush
    if (loaded == LOADED_MM_SWITCHING) co_return true;
    if (loaded == info.mm->id) co_return true;
    co_return info.trim_cpumask;  // in mm_cpumask but running another mm: trim it
}

sim::Task<> Mm::flush_tlb_func(hw::Cpu& cpu, const FlushTlbInfo& f) {
    static const uint32_t label = hw::profile_label("flush_tlb_func", hw::LabelCategory::tlb_invalidation);
    auto scope = cpu.function(label);
    const hw::CpuId me = cpu.id();
    const bool local = me == f.initiating_cpu;
    ++flush_stats_.flush_tlb_func;
    co_await cpu.compute_cycles(costs::flush_tlb_func);
    CpuTlbState& st = tlbstate_[me];
    // The sender's flush_tlb_info (a remote call), this_cpu_read(cpu_tlbstate.loaded_mm) and
    // .loaded_mm_asid, and cpu_tlbstate_shared.is_lazy: independent loads, issued together past
    // the predicted branches between them (hw/coherence/loads.h).
    auto [info_word, loaded, asid, lazy] =
        co_await mem_.loads(me, local ? nullptr : f.line, st.loaded_mm, st.loaded_mm_asid, st.is_lazy);
    (void)info_word;
    // The CPU was left in the mm_cpumask of the target mm: clear it.
    if (f.mm != nullptr && f.mm->id != loaded) {
        co_await mem_.clear_bit(me, *f.mm->cpumask[me / 64], me % 64);
        ++flush_stats_.stale_cpumask;
        co_return;
    }
    if (loaded == init_mm().id) co_return;
    // The RAR RFC (v3/v4, arch/x86/mm/tlb.c) moves the global-ASID steps after the lazy check;
    // mainline (INVLPGB, 6.15+) has them before it.
    const bool rar = global_asid_flavour_ == GlobalAsidFlavour::mm_cpumask;
    if (broadcast_tlb_flush() && !rar) {
        const uint64_t before = asid;
        asid = co_await reload_global_asid(cpu, loaded, asid);
        // Broadcast ASIDs are always kept up to date with INVLPGB.
        if (is_global_asid(asid)) {
            ++flush_stats_.global_asid_returns;
            co_return;
        }
        // A reload (into or out of a global ASID: the ASID changed) wrote CR3, a serializing
        // instruction: is_lazy is read again after it.
        if (asid != before) lazy = co_await mem_.load(me, *st.is_lazy);
    }
    if (lazy != 0) {
        // Lazy CPUs get here only for freed page tables: leave the user mm altogether. With
        // RAR, leave its mm_cpumask first (it flushes when it comes back, as a new CPU).
        ++flush_stats_.lazy_switches;
        if (rar && f.mm != nullptr) co_await mem_.clear_bit(me, *f.mm->cpumask[me / 64], me % 64);
        co_await switch_mm_irqs_off(cpu, init_mm());
        co_return;
    }
    if (rar) asid = co_await reload_global_asid(cpu, loaded, asid);
    // With RAR, IPI flushes (trim rounds, rar_tlb_flush's local call) that get here on a global
    // ASID are processed. A global ASID has no ctxs[] generation: local_tlb_gen stays 0, so the
    // request is never the next generation and the flush is a full one (after the mm's tlb_gen
    // has been read), and no generation is recorded.
    const bool dyn_asid = !is_global_asid(asid);
    if (!dyn_asid) ++flush_stats_.global_asid_flushes;
    const uint64_t local_tlb_gen = dyn_asid ? co_await mem_.load(me, *st.ctxs[asid].tlb_gen) : 0;
    if (f.new_tlb_gen != TLB_GENERATION_INVALID && f.new_tlb_gen <= local_tlb_gen) {
        ++flush_stats_.coalesced;  // already caught up; mm->tlb_gen deliberately not read
        co_return;
    }
    MmStruct& loaded_mm = *mm_by_id(loaded);
    const uint64_t mm_tlb_gen = co_await mem_.load(me, *loaded_mm.tlb_gen);  // after smp_rmb()
    if (local_tlb_gen == mm_tlb_gen) {
        ++flush_stats_.coalesced;  // another flush caught us up
    } else if (f.end != TLB_FLUSH_ALL && f.new_tlb_gen == local_tlb_gen + 1 && f.new_tlb_gen == mm_tlb_gen) {
        // Partial flush: flush_tlb_one_user() per page (INVLPG; no PTI on these machines).
        ++flush_stats_.partial;
        const auto pcid = static_cast<hw::Pcid>(asid + 1);
        for (uint64_t addr = f.start; addr < f.end; addr += 1ULL << f.stride_shift) {
            co_await hw::invlpg(cpu, *tlbs_[me], pcid, addr);
        }
    } else {
        // flush_tlb_local(): rewrite CR3, flushing the current PCID.
        ++flush_stats_.full;
        co_await hw::write_cr3(cpu, *tlbs_[me], static_cast<hw::Pcid>(asid + 1), /*noflush=*/false);
    }
    // Both paths above update our state to mm_tlb_gen.
    if (dyn_asid) co_await mem_.store(me, *st.ctxs[asid].tlb_gen, mm_tlb_gen);
}

sim::Task<uint64_t> Mm::reload_global_asid(hw::Cpu& cpu, uint64_t loaded, uint64_t asid) {
    // Reload the ASID if the mm is transitioning into a global ASID.
    const bool to_global = co_await mm_needs_global_asid(cpu, *mm_by_id(loaded), asid);
    if (!to_global) co_return asid;
    ++flush_stats_.asid_reloads;
    co_await switch_mm_irqs_off(cpu, *mm_by_id(loaded));
    co_return co_await mem_.load(cpu.id(), *tlbstate_[cpu.id()].loaded_mm_asid);
}

}  // namespace ipisim::kernel::mm
