// Mm: construction, mm_structs, folios, and the context-switch half of arch/x86/mm/tlb.c
// (switch_mm_irqs_off, choose_new_asid, enter_lazy_tlb; docs/mechanisms.md §2.2-2.3).
#include "kernel/mm/mm.h"
#include "kernel/mm/sched_link.h"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/tlb/tlb_insn.h"
#include "kernel/mm/mm_costs.h"
#include "sim/rng.h"

namespace ipisim::kernel::mm {

Vma* MmStruct::find_vma(uint64_t va) const {
    auto it = vmas.upper_bound(va);
    if (it == vmas.begin()) return nullptr;
    --it;
    return va < it->second->end ? it->second : nullptr;
}

Mm::Mm(Kernel& kernel, const std::string& flush_protocol)
    : k_(kernel),
      mem_(kernel.platform().memory()),
      nr_cpus_(kernel.platform().nr_cpus()),
      sched_link_(std::make_unique<SchedLink>(kernel, *this)) {
    hw::Platform& p = kernel.platform();
    const hw::MachineSpec& spec = p.spec();
    const uint32_t nr_asids = spec.tlb.nr_dyn_asids == 0 ? 1 : spec.tlb.nr_dyn_asids;
    nr_dyn_asids_ = nr_asids;
    for (hw::CpuId c = 0; c < nr_cpus_; ++c) task_pid_.push_back(FIRST_TASK_PID + c);
    protocol_ = make_tlb_flush_protocol(flush_protocol);
    const std::string why = protocol_->machine_support(spec);
    if (!why.empty()) {
        throw std::invalid_argument(fmt::format("tlb_flush \"{}\" on machine {}: {}", flush_protocol, spec.name, why));
    }
    global_asid_flavour_ = protocol_->global_asid_flavour();
    MmStruct& init = mm_alloc(0);  // init_mm: ctx_id 1, never in a user's way
    for (hw::CpuId c = 0; c < nr_cpus_; ++c) {
        const uint32_t node = p.topology().node_of(c);
        tlbs_.push_back(&p.tlb(c));
        CpuTlbState st;
        // cpu_tlbstate: two lines; loaded_mm, loaded_mm_asid and ctxs[0..2] on the first.
        hw::CacheLine& l0 = mem_.new_line(fmt::format("cpu_tlbstate[{}]", c), node);
        hw::CacheLine& l1 = mem_.new_line(fmt::format("cpu_tlbstate[{}].ctxs3", c), node);
        st.loaded_mm = &mem_.new_var(l0, init.id);
        st.loaded_mm_asid = &mem_.new_var(l0, 0);
        for (uint32_t a = 0; a < nr_asids; ++a) {
            hw::CacheLine& l = a < 3 ? l0 : l1;
            st.ctxs.push_back(TlbContext{&mem_.new_var(l, a == 0 ? init.ctx_id : 0), &mem_.new_var(l, 0)});
        }
        l0.prime(c);
        l1.prime(c);
        st.is_lazy = &mem_.new_aligned_var(fmt::format("cpu_tlbstate_shared[{}].is_lazy", c), node);
        st.is_lazy->line().prime(c);
        tlbstate_.push_back(std::move(st));
        FlushTlbInfo info;
        info.line = &mem_.new_aligned_var(fmt::format("flush_tlb_info[{}]", c), node);
        info.line->line().prime(c);
        flush_info_.push_back(info);
    }
    zero_folio_.zero = true;
    zero_folio_.refcount = 1;
    lru_ = std::make_unique<Lru>(*this, kernel.config().folio_batch_size);
    memcg_ = std::make_unique<MemCgroup>(mem_, kernel.config().memcg_depth, nr_cpus_);
    fault_lock_ = kernel.config().fault_lock;
    madvise_lock_ = kernel.config().madvise_lock;
    lazy_mm_cpumask_ = kernel.config().lazy_mm_cpumask;
    protocol_->attach(*this);
}

Mm::~Mm() = default;

MmStruct* Mm::mm_by_id(uint64_t id) {
    if (id < INIT_MM_ID || id - INIT_MM_ID >= mms_.size()) return nullptr;
    return mms_[id - INIT_MM_ID].get();
}

uint64_t Mm::jiffies() const {
    return k_.platform().engine().now().count() / k_.tick().period().count();
}

MmStruct& Mm::mm_alloc(uint32_t home_node) {
    auto m = std::make_unique<MmStruct>();
    m->id = INIT_MM_ID + mms_.size();
    m->ctx_id = next_ctx_id_++;
    m->home_node = home_node;
    hw::CacheLine& ctx = mem_.new_line(fmt::format("mm[{}].context", m->id), home_node);
    m->tlb_gen = &mem_.new_var(ctx, 0);
    m->next_trim_cpumask = &mem_.new_var(ctx, jiffies() + hz());
    hw::CacheLine* mask_line = nullptr;
    for (uint32_t w = 0; w < (nr_cpus_ + 63) / 64; ++w) {
        if (w % 8 == 0) mask_line = &mem_.new_line(fmt::format("mm[{}].cpu_bitmap.{}", m->id, w / 8), home_node);
        m->cpumask.push_back(&mem_.new_var(*mask_line, 0));
    }
    m->mmap_lock = std::make_unique<RwSem>(mem_, fmt::format("mm[{}].mmap_lock", m->id), home_node, sched_link_.get());
    m->mm_lock_seq = &mem_.new_aligned_var(fmt::format("mm[{}].mm_lock_seq", m->id), home_node);
    m->tlb_flush_pending = &mem_.new_aligned_var(fmt::format("mm[{}].tlb_flush_pending", m->id), home_node);
    mms_.push_back(std::move(m));
    if (broadcast_tlb_flush()) alloc_global_asid_line(*mms_.back());
    return *mms_.back();
}

void Mm::alloc_global_asid_line(MmStruct& m) {
    // mm->context.global_asid / asid_transition sit ~128 bytes after tlb_gen (past the LDT
    // rwsem, context.lock and the vdso pointers): a read-mostly line of their own.
    hw::CacheLine& l = mem_.new_line(fmt::format("mm[{}].context.global_asid", m.id), m.home_node);
    m.global_asid = &mem_.new_var(l, 0);
    m.asid_transition = &mem_.new_var(l, 0);
}

Folio* Mm::alloc_folio() {
    Folio* f = nullptr;
    if (!free_folios_.empty()) {
        f = free_folios_.back();
        free_folios_.pop_back();
    } else {
        folios_.push_back(std::make_unique<Folio>());
        f = folios_.back().get();
        f->pfn = folios_.size();
    }
    f->refcount = 1;
    f->lru = false;
    ++stats_.pages_allocated;
    return f;
}

void Mm::free_folio(Folio* f) {
    ++stats_.pages_freed;
    free_folios_.push_back(f);
}

hw::Pcid Mm::loaded_pcid(hw::CpuId c) const {
    // The CPU's own view: its switch_mm's stores may still be in its store buffer.
    return static_cast<hw::Pcid>(mem_.peek(c, *tlbstate_.at(c).loaded_mm_asid) + 1);  // kern_pcid()
}

uint64_t Mm::loaded_mm(hw::CpuId c) const {
    return mem_.peek(c, *tlbstate_.at(c).loaded_mm);
}

sim::Task<> Mm::enter_lazy_tlb(hw::Cpu& cpu) {
    CpuTlbState& st = tlbstate_[cpu.id()];
    const uint64_t loaded = co_await mem_.load(cpu.id(), *st.loaded_mm);
    if (loaded == init_mm().id) co_return;
    co_await mem_.store(cpu.id(), *st.is_lazy, 1);
}

sim::Task<bool> Mm::mm_needs_global_asid(hw::Cpu& cpu, MmStruct& mm, uint64_t asid) {
    const uint64_t global_asid = co_await mem_.load(cpu.id(), *mm.global_asid);  // smp_load_acquire
    co_return global_asid != 0 && asid != global_asid;
}

void Mm::set_asid_history(uint64_t seed) {
    sim::Rng rng = sim::Rng::stream(seed, "mm.asid_history");
    for (CpuTlbState& st : tlbstate_) {
        if (st.ctxs.empty()) continue;  // no dynamic ASIDs (arm64 here)
        st.next_asid = static_cast<uint16_t>(rng.uniform(1, st.ctxs.size()));
    }
}

sim::Task<> Mm::switch_mm_irqs_off(hw::Cpu& cpu, MmStruct& next) {
    static const uint32_t label = hw::profile_label("switch_mm_irqs_off");
    auto scope = cpu.function(label);
    const hw::CpuId me = cpu.id();
    const bool irqs_were_on = !cpu.irqs_disabled();
    if (irqs_were_on) cpu.local_irq_disable();
    co_await cpu.compute_cycles(costs::switch_mm_irqs_off);
    CpuTlbState& st = tlbstate_[me];
    const uint64_t prev = co_await mem_.load(me, *st.loaded_mm);
    const uint64_t prev_asid = co_await mem_.load(me, *st.loaded_mm_asid);
    const uint64_t was_lazy = co_await mem_.load(me, *st.is_lazy);
    if (was_lazy != 0) co_await mem_.store(me, *st.is_lazy, 0);

    uint64_t new_asid = prev_asid;
    uint64_t next_tlb_gen = 0;
    bool need_flush = false;
    bool done = false;
    // mm_needs_global_asid(next, prev_asid): the mm is transitioning to a global ASID.
    bool to_global = false;
    if (prev == next.id && broadcast_tlb_flush()) to_global = co_await mm_needs_global_asid(cpu, next, prev_asid);
    if (to_global) {
        next_tlb_gen = co_await mem_.load(me, *next.tlb_gen);
        new_asid = co_await mem_.load(me, *next.global_asid);  // choose_new_asid: global, no flush
    } else if (prev == next.id) {
        if (is_global_asid(prev_asid) || was_lazy == 0) {
            // A global ASID is kept up to date by broadcast invalidation; a thread switch
            // within one process (not back from lazy) has nothing to do.
            done = true;
        } else {
            // Back from lazy mode: catch up if flushes were skipped meanwhile. smp_mb() orders the
            // is_lazy store above before the tlb_gen read, against the flusher's tlb_gen
            // increment before its is_lazy read (should_flush_tlb): without it the read can pass
            // the buffered store, and both sides miss the flush.
            co_await mem_.fence(me);
            next_tlb_gen = co_await mem_.load(me, *next.tlb_gen);
            const uint64_t slot_gen = co_await mem_.load(me, *st.ctxs[prev_asid].tlb_gen);
            if (slot_gen == next_tlb_gen) {
                done = true;
            } else {
                need_flush = true;
            }
        }
    } else {
        // Before 6.14 ([kernel] lazy_mm_cpumask = false): stop remote flushes for the previous
        // mm, an atomic clear on its shared mask line (kernel threads' init_mm skipped).
        if (!lazy_mm_cpumask_ && prev != init_mm().id) {
            if (MmStruct* p = mm_by_id(prev); p != nullptr) co_await mem_.clear_bit(me, *p->cpumask[me / 64], me % 64);
        }
        co_await mem_.store(me, *st.loaded_mm, LOADED_MM_SWITCHING);
        bool new_cpu = false;
        if (next.id != init_mm().id) {
            // Start remote flushes: from 6.14 only when the bit is missing (a read first), before
            // an atomic set every time.
            hw::SimVar& word = *next.cpumask[me / 64];
            const uint64_t bits = lazy_mm_cpumask_ ? co_await mem_.load(me, word) : 0;
            new_cpu = (bits >> (me % 64) & 1) == 0;
            if (new_cpu) co_await mem_.set_bit(me, word, me % 64);
        }
        // The atomic set is a full barrier; without it, smp_mb(): the LOADED_MM_SWITCHING
        // store must be visible before tlb_gen is read, paired with the flusher's tlb_gen
        // increment before its loaded_mm read in should_flush_tlb (83b0177a6c48, "x86/mm: Fix
        // SMP ordering in switch_mm_irqs_off()", v6.18 and stable: 6.14's lazy mm_cpumask had
        // dropped the atomic when the bit was set, and with it the barrier).
        if (!new_cpu && !switch_mm_skips_smp_mb_) co_await mem_.fence(me);
        next_tlb_gen = co_await mem_.load(me, *next.tlb_gen);
        // choose_new_asid(next, next_tlb_gen, new_cpu): with INVLPGB a global ASID is always
        // current; with RAR only on mm_cpumask CPUs, so a CPU new to the mask flushes it.
        bool found = false;
        if (broadcast_tlb_flush()) {
            const uint64_t global_asid = co_await mem_.load(me, *next.global_asid);
            if (global_asid != 0) {
                new_asid = global_asid;
                need_flush = global_asid_flavour_ == GlobalAsidFlavour::mm_cpumask && new_cpu;
                if (need_flush) ++flush_stats_.global_asid_switch_flushes;
                found = true;
            }
        }
        for (uint64_t a = 0; !found && a < st.ctxs.size(); ++a) {
            const uint64_t id = co_await mem_.load(me, *st.ctxs[a].ctx_id);
            if (id != next.ctx_id) continue;
            const uint64_t gen = co_await mem_.load(me, *st.ctxs[a].tlb_gen);
            new_asid = a;
            need_flush = gen < next_tlb_gen;
            found = true;
            break;
        }
        if (!found) {
            new_asid = st.next_asid++;
            if (new_asid >= st.ctxs.size()) {
                new_asid = 0;
                st.next_asid = 1;
            }
            need_flush = true;
        }
    }
    if (!done) {
        if (need_flush && !is_global_asid(new_asid)) {  // global ASIDs have no ctxs[] slot
            co_await mem_.store(me, *st.ctxs[new_asid].ctx_id, next.ctx_id);
            co_await mem_.store(me, *st.ctxs[new_asid].tlb_gen, next_tlb_gen);
        }
        const auto pcid = static_cast<hw::Pcid>(new_asid + 1);
        co_await hw::write_cr3(cpu, *tlbs_[me], pcid, /*noflush=*/!need_flush);
        co_await mem_.store(me, *st.loaded_mm, next.id);
        co_await mem_.store(me, *st.loaded_mm_asid, new_asid);
    }
    if (protocol_->hooks_context_switch()) co_await protocol_->switch_mm_done(cpu);
    if (irqs_were_on) co_await cpu.local_irq_enable();
}

}  // namespace ipisim::kernel::mm
