#include "hw/coherence/store_buffer.h"

#include <algorithm>
#include <stdexcept>

#include "hw/check_hooks.h"
#include "hw/coherence/access.h"

namespace ipisim::hw {

StoreBuffers::StoreBuffers(sim::Engine& eng, CoherenceProtocol& protocol, uint32_t entries)
    : eng_(eng),
      protocol_(protocol),
      capacity_(std::max(entries, 1U)),
      // A store that waits for room in the buffer has not issued: no RFO before it is inside.
      rfo_window_(std::min(std::max(protocol.spec().fill_buffers, 1U), capacity_)),
      cpus_(protocol.topology().nr_cpus()) {}

bool StoreBuffers::forward(CpuId cpu, const SimVar& v, uint64_t& value) const {
    // The buffered stores to v in program order over the cached value: the newest whole-word
    // store wins, stores of some bytes merge into what is below them.
    const PerCpu& c = cpus_[cpu];
    bool found = false;
    uint64_t merged = v.peek();
    for (size_t i = c.head; i < c.q.size(); ++i) {
        const Entry& e = c.q[i];
        if (e.kind == Kind::store && e.var == &v) {
            merged = (merged & ~e.mask) | (e.value & e.mask);
            found = true;
        }
    }
    if (found) value = merged;
    return found;
}

StoreBuffers::Entry StoreBuffers::store_entry(SimVar& v, uint64_t value, uint64_t mask, sim::Signal* also,
                                              sim::Process* proc, uint32_t epoch) const {
    Entry e;
    e.var = &v;
    e.value = value;
    e.mask = mask;
    e.also = also;
    e.proc = proc;
    e.epoch = epoch;
    e.ready = eng_.now() + perturbed_store_commit(protocol_.spec().l1_hit);
    e.kind = Kind::store;
    return e;
}

bool StoreBuffers::try_push_store(CpuId cpu, SimVar& v, uint64_t value, uint64_t mask, sim::Signal* also) {
    if (cpus_[cpu].size() >= capacity_) return false;
    push(cpu, store_entry(v, value, mask, also, nullptr, 0));
    return true;
}

void StoreBuffers::push_full_store(CpuId cpu, SimVar& v, uint64_t value, uint64_t mask, sim::Signal* also,
                                   sim::Process* proc, uint32_t epoch) {
    // Queued now, so that it keeps its place in program order; the process waits until the
    // entry is among the first `capacity_` (step()).
    push(cpu, store_entry(v, value, mask, also, proc, epoch));
}

void StoreBuffers::push_rmw(CpuId cpu, AccessBase* access, sim::Process* proc, uint32_t epoch) {
    Entry e;
    e.access = access;
    e.proc = proc;
    e.epoch = epoch;
    e.ready = eng_.now();
    e.kind = Kind::rmw;
    push(cpu, e);
}

void StoreBuffers::push_fence(CpuId cpu, sim::Process* proc, uint32_t epoch) {
    Entry e;
    e.proc = proc;
    e.epoch = epoch;
    e.ready = eng_.now();
    e.kind = Kind::fence;
    push(cpu, e);
}

void StoreBuffers::push(CpuId cpu, Entry e) {
    PerCpu& c = cpus_[cpu];
    // Among the first rfo_window_ entries: its RFO leaves as soon as the store may commit.
    if (e.kind == Kind::store && c.size() < rfo_window_) e.rfo = e.ready;
    c.q.push_back(e);  // may reallocate: no Entry reference is held across a push
    kick(cpu);
}

void StoreBuffers::wake(sim::Process* proc, uint32_t epoch, sim::Picos at) {
    eng_.schedule_at(at, &sim::Process::on_wake_event, proc, epoch, proc->id());
}

void StoreBuffers::kick(CpuId cpu) {
    PerCpu& c = cpus_[cpu];
    if (c.event_pending || c.empty()) return;
    sim::Picos at;
    switch (c.phase) {
        case Phase::waiting:
            if (c.front().kind == Kind::store) {
                start_store(c, cpu);  // no event until the store becomes visible
                at = c.reserve_at;
            } else {
                at = std::max(eng_.now(), c.front().ready);
            }
            break;
        case Phase::requested:
            at = c.reserve_at;
            break;
        case Phase::reserved:
            at = c.done;
            break;
    }
    c.event_pending = true;
    eng_.schedule_at(at, &StoreBuffers::on_step, this, cpu, kStoreBufferTagBase + cpu);
}

void StoreBuffers::start_store(PerCpu& c, CpuId cpu) {
    // The head store's RFO left when it may commit, or when it moved up among the first
    // rfo_window_ entries (every store among them has one: push() and step() give it); the
    // store is written, and visible, once the line has arrived owned, a transfer after that
    // (under the checker, a perturbed one): the line's transfer as it stands now, when the
    // store becomes the head.
    const Entry& head = c.front();
    const sim::Picos now = eng_.now();
    if (head.rfo == sim::Picos::max()) throw std::logic_error("store buffer: a head store without its RFO");
    c.left = head.rfo;
    c.estimated = protocol_.write_cost(cpu, head.var->line());
    c.reserve_at = std::max({now, head.ready, c.left + perturbed_line_transfer(c.estimated)});
    c.phase = Phase::requested;
}

void StoreBuffers::on_step(void* obj, uint32_t cpu) {
    auto* self = static_cast<StoreBuffers*>(obj);
    self->cpus_[cpu].event_pending = false;
    self->step(cpu);
}

void StoreBuffers::step(CpuId cpu) {
    PerCpu& c = cpus_[cpu];
    const sim::Picos now = eng_.now();
    while (!c.empty()) {
        Entry& head = c.front();
        if (c.phase == Phase::waiting) {
            if (head.ready > now && head.kind != Kind::store) break;
            switch (head.kind) {
                case Kind::store:
                    start_store(c, cpu);
                    break;
                case Kind::rmw: {
                    const sim::Picos wait = head.access->perform();
                    wake(head.proc, head.epoch, now + wait);
                    c.done = now + wait;
                    c.phase = Phase::reserved;
                    break;
                }
                case Kind::fence:
                    wake(head.proc, head.epoch, now);
                    c.done = now;
                    c.phase = Phase::reserved;
                    break;
            }
        }
        if (c.phase == Phase::requested) {
            if (c.reserve_at > now) break;
            // A CPU that took a copy of the line since the transfer was estimated (a load between
            // the store's issue and its commit, which the checker may delay) is invalidated
            // first: the store is visible no earlier than its RFO could bring the line as it
            // stands now.
            const sim::Picos cost = protocol_.write_cost(cpu, head.var->line());
            if (cost > c.estimated) {
                c.estimated = cost;
                c.reserve_at = std::max(now, c.left + perturbed_line_transfer(cost));
                if (c.reserve_at > now) break;
            }
            // From here on the write is in the line's order: others see the new value.
            const sim::Picos wait = protocol_.reserve_write_issued(cpu, head.var->line(), c.left);
            head.var->value_ = (head.var->value_ & ~head.mask) | (head.value & head.mask);
            c.done = now + wait;
            c.phase = Phase::reserved;
        }
        if (c.done > now) break;
        // The head has completed.
        if (head.kind == Kind::store) {
            head.var->line().written().notify_all();
            if (head.also != nullptr) head.also->notify_all();
        }
        c.pop_front();
        c.phase = Phase::waiting;
        // The entry that moved up among the first rfo_window_ sends its RFO.
        if (c.size() >= rfo_window_) {
            Entry& moved = c.at(rfo_window_ - 1);
            if (moved.kind == Kind::store && moved.rfo == sim::Picos::max()) moved.rfo = std::max(moved.ready, now);
        }
        // A store that waited for room is now inside the buffer: its CPU goes on.
        if (c.size() >= capacity_) {
            Entry& admitted = c.at(capacity_ - 1);
            if (admitted.kind == Kind::store && admitted.proc != nullptr) {
                wake(admitted.proc, admitted.epoch, now);
                admitted.proc = nullptr;
            }
        }
    }
    kick(cpu);
}

}  // namespace ipisim::hw
