// VMAs (mm/vma.c, include/linux/mmap_lock.h; docs/mechanisms.md §5.5): the per-VMA lock of the
// fault and madvise paths, its write side, and how mmap and munmap merge and split anonymous
// VMAs.
//
// - lock_vma_under_rcu(): walk the tree under RCU, then vma_start_read(): fail when the VMA
//   is write-locked (vm_lock_seq == mm->mm_lock_seq), else take the lock's reader count with a
//   read + try_cmpxchg loop that fails while a writer holds it (down_read_trylock; from 6.15
//   the same on vm_refcnt), re-check the sequence, then check that the VMA still covers the
//   range. A VMA freed meanwhile (its object may already be reused) is looked up again; any
//   other failure falls back to mmap_read_lock (VMA_LOCK_ABORT).
// - vma_start_write(): under mmap_lock for write, once per VMA and write hold: wait for the
//   VMA's readers to leave (down_write on its lock, then up_write; from 6.15 __vma_enter_locked
//   waits on vm_refcnt), then vm_lock_seq = mm_lock_seq. The VMA stays write-locked until
//   mmap_write_unlock() or mmap_write_downgrade() bumps mm_lock_seq (vma_end_write_all), so
//   faults on it meanwhile take mmap_lock and wait for the writer. From 6.14 mm_lock_seq is a
//   seqcount that mmap_write_lock() bumps too (odd while held; mmap_write_lock_seqcount).
// - mmap: vma_merge_new_range() extends the neighbour below (prev) when it ends where the new
//   range starts, and the one above (next) when it starts where the range ends; with both,
//   prev grows over the range and next, and next is removed. Every VMA it changes or removes
//   is write-locked first. [A] Every anonymous VMA of an mm can merge with its neighbours:
//   same flags, no file, one anon_vma (a VMA's first fault reuses its neighbour's anon_vma,
//   find_mergeable_anon_vma, and split pieces share it); no other mapping (thread stacks,
//   libraries) lies next to the regions tlb_flush2 maps.
// - munmap: vms_gather_munmap_vmas() splits the VMA at the range's start (__split_vma with
//   new_below: a new VMA for the part below) and end (a new VMA for the part above), so the
//   original object, write-locked, is the one detached; the remaining parts are new objects
//   with their own lock lines.
#include <stdexcept>

#include <fmt/format.h>

#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"
#include "kernel/mm/sched_link.h"

namespace ipisim::kernel::mm {

Vma* Mm::vm_area_alloc(MmStruct& mm, uint64_t start, uint64_t end) {
    Vma* v = nullptr;
    if (mm.free_vmas.empty()) {
        auto fresh = std::make_unique<Vma>();
        fresh->vm_lock = std::make_unique<RwSem>(mem_, "vma.vm_lock", mm.home_node, sched_link_.get());
        fresh->bounds = &mem_.new_aligned_var("vma.vm_start", mm.home_node);
        v = fresh.get();
        mm.vma_slab.push_back(std::move(fresh));
    } else {
        v = mm.free_vmas.back();
        mm.free_vmas.pop_back();
    }
    v->start = start;
    v->end = end;
    v->detached = true;
    return v;
}

void Mm::vma_insert(MmStruct& mm, Vma& v) {
    v.detached = false;
    mm.vmas[v.start] = &v;
}

void Mm::vma_remove(MmStruct& mm, Vma& v) {
    mm.vmas.erase(v.start);
    v.detached = true;
    mm.free_vmas.push_back(&v);
}

void Mm::vma_set_start(MmStruct& mm, Vma& v, uint64_t start) {
    mm.vmas.erase(v.start);
    v.start = start;
    mm.vmas[start] = &v;
}

bool Mm::vma_write_locked(const MmStruct& mm, const Vma& v) {
    return v.vm_lock_seq == mm.mm_lock_seq->peek();
}

sim::Task<> Mm::vma_start_write(hw::Cpu& cpu, MmStruct& mm, Vma& v) {
    if (!per_vma_lock() || vma_write_locked(mm, v)) co_return;  // !CONFIG_PER_VMA_LOCK: a no-op
    co_await v.vm_lock->down_write(cpu);
    v.vm_lock_seq = mm.mm_lock_seq->peek();
    co_await mem_.store(cpu.id(), *v.bounds, v.vm_lock_seq);
    co_await v.vm_lock->up_write(cpu);
}

// The writer holds mmap_lock: a plain load and store, made visible before the unlock (a locked
// RMW) lets anybody in.
sim::Task<> Mm::bump_mm_lock_seq(hw::Cpu& cpu, MmStruct& mm) {
    const uint64_t seq = co_await mem_.load(cpu.id(), *mm.mm_lock_seq);
    co_await mem_.store(cpu.id(), *mm.mm_lock_seq, seq + 1);
}

// Before 6.14 smp_store_release(&mm->mm_lock_seq, mm->mm_lock_seq + 1), from 6.14 the
// seqcount's sequence++ (mm_lock_seqcount_end).
sim::Task<> Mm::vma_end_write_all(hw::Cpu& cpu, MmStruct& mm) {
    co_await bump_mm_lock_seq(cpu, mm);
}

// "mm: convert mm_lock_seq to a proper seqcount" (Suren Baghdasaryan, 6.14): mmap_write_lock()
// makes the sequence odd (do_raw_write_seqcount_begin: sequence++, then smp_wmb), so a write
// hold costs the mm_lock_seq line, which every lock_vma_under_rcu reads, two writes.
sim::Task<> Mm::mmap_write_lock_seqcount(hw::Cpu& cpu, MmStruct& mm) {
    if (kernel().version() >= Version{6, 14}) co_await bump_mm_lock_seq(cpu, mm);
}

sim::Task<Vma*> Mm::lock_vma_under_rcu(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end) {
    const hw::CpuId me = cpu.id();
    for (;;) {
        co_await cpu.compute_cycles(costs::lock_vma_under_rcu);  // mas_walk under rcu_read_lock
        Vma* v = mm.find_vma(start);
        if (v == nullptr) {
            ++stats_.vma_lock_abort;
            co_return nullptr;
        }
        // vma_start_read(): vm_lock_seq (on the vm_start line) against mm->mm_lock_seq.
        co_await mem_.load(me, *v->bounds);
        co_await mem_.load(me, *mm.mm_lock_seq);
        if (vma_write_locked(mm, *v)) {
            ++stats_.vma_lock_abort;
            co_return nullptr;
        }
        if (v->detached) {  // the refcount read 0: freed under us, look again
            ++stats_.vma_lock_miss;
            continue;
        }
        if (!co_await v->vm_lock->down_read_trylock(cpu)) {
            ++stats_.vma_lock_abort;
            co_return nullptr;
        }
        if (v->detached) {  // freed while we took it: -EAGAIN, retry
            ++stats_.vma_lock_miss;
            co_await v->vm_lock->up_read(cpu);
            continue;
        }
        if (vma_write_locked(mm, *v) || start < v->start || end > v->end) {
            ++stats_.vma_lock_abort;
            co_await v->vm_lock->up_read(cpu);  // inval_end_read
            co_return nullptr;
        }
        ++stats_.vma_lock_success;
        co_return v;
    }
}

std::pair<Vma*, Vma*> Mm::merge_neighbours(const MmStruct& mm, uint64_t start, uint64_t end) {
    Vma* prev = nullptr;
    Vma* next = nullptr;
    if (auto it = mm.vmas.lower_bound(start); it != mm.vmas.begin()) {
        Vma* below = std::prev(it)->second;
        if (below->end == start) prev = below;
    }
    if (auto it = mm.vmas.find(end); it != mm.vmas.end()) next = it->second;
    return {prev, next};
}

Vma* Mm::vma_merge_apply(MmStruct& mm, Vma* prev, Vma* next, uint64_t start, uint64_t end) {
    if (prev != nullptr) {
        prev->end = next != nullptr ? next->end : end;
        if (next != nullptr) vma_remove(mm, *next);
        return prev;
    }
    if (next != nullptr) {
        vma_set_start(mm, *next, start);
        return next;
    }
    Vma* v = vm_area_alloc(mm, start, end);  // vm_area_alloc, vma_iter_store
    vma_insert(mm, *v);
    return v;
}

sim::Task<> Mm::vma_merge_new_range(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end) {
    auto [prev, next] = merge_neighbours(mm, start, end);
    if (prev == nullptr && next == nullptr) {
        vma_merge_apply(mm, nullptr, nullptr, start, end);
        co_return;
    }
    ++stats_.vma_merges;
    co_await cpu.compute_cycles(costs::vma_expand);
    // Every VMA the merge changes or removes is write-locked first.
    if (prev != nullptr) co_await vma_start_write(cpu, mm, *prev);
    if (next != nullptr) co_await vma_start_write(cpu, mm, *next);
    Vma* v = vma_merge_apply(mm, prev, next, start, end);
    co_await mem_.store(cpu.id(), *v->bounds, v->vm_lock_seq);  // vm_end (prev) or vm_start (next)
}

sim::Task<> Mm::vms_gather_munmap_vmas(hw::Cpu& cpu, MmStruct& mm, uint64_t start, uint64_t end) {
    Vma* v = mm.find_vma(start);
    if (v == nullptr || v->end < end) {
        throw std::logic_error(
            fmt::format("vm_munmap [{:#x}, {:#x}): only ranges inside one VMA are modeled", start, end));
    }
    if (v->start < start) {  // __split_vma(vma, start, new_below = 1)
        ++stats_.vma_splits;
        co_await cpu.compute_cycles(costs::split_vma);
        Vma* below = vm_area_alloc(mm, v->start, start);
        co_await vma_start_write(cpu, mm, *v);
        co_await vma_start_write(cpu, mm, *below);
        vma_set_start(mm, *v, start);
        vma_insert(mm, *below);  // vma_complete stores the new VMA
        co_await mem_.store(cpu.id(), *v->bounds, v->vm_lock_seq);
    }
    if (v->end > end) {  // __split_vma(next, end, new_below = 0)
        ++stats_.vma_splits;
        co_await cpu.compute_cycles(costs::split_vma);
        Vma* above = vm_area_alloc(mm, end, v->end);
        co_await vma_start_write(cpu, mm, *v);
        co_await vma_start_write(cpu, mm, *above);
        v->end = end;
        vma_insert(mm, *above);
        co_await mem_.store(cpu.id(), *v->bounds, v->vm_lock_seq);
    }
    co_await vma_start_write(cpu, mm, *v);
    vma_remove(mm, *v);  // vma_mark_detached; freed (reusable) at once
}

}  // namespace ipisim::kernel::mm
