#include "hw/coherence/store_buffer.h"

#include <algorithm>

#include "hw/check_hooks.h"
#include "hw/coherence/access.h"

namespace ipisim::hw {

StoreBuffers::StoreBuffers(sim::Engine& eng, CoherenceProtocol& protocol, uint32_t entries)
    : eng_(eng), protocol_(protocol), capacity_(std::max(entries, 1U)), cpus_(protocol.topology().nr_cpus()) {}

bool StoreBuffers::forward(CpuId cpu, const SimVar& v, uint64_t& value) const {
    const PerCpu& c = cpus_[cpu];
    for (size_t i = c.q.size(); i > c.head; --i) {
        const Entry& e = c.q[i - 1];
        if (e.kind == Kind::store && e.var == &v) {
            value = e.value;
            return true;
        }
    }
    return false;
}

bool StoreBuffers::try_push_store(CpuId cpu, SimVar& v, uint64_t value, sim::Signal* also) {
    if (cpus_[cpu].size() >= capacity_) return false;
    push(cpu, Entry{&v, value, nullptr, also, nullptr, 0, eng_.now() + perturbed_store_commit(protocol_.spec().l1_hit),
                    Kind::store});
    return true;
}

void StoreBuffers::push_full_store(CpuId cpu, SimVar& v, uint64_t value, sim::Signal* also, sim::Process* proc,
                                   uint32_t epoch) {
    // Queued now, so that it keeps its place in program order; the process waits until the
    // entry is among the first `capacity_` (step()).
    push(cpu, Entry{&v, value, nullptr, also, proc, epoch, eng_.now() + perturbed_store_commit(protocol_.spec().l1_hit),
                    Kind::store});
}

void StoreBuffers::push_rmw(CpuId cpu, AccessBase* access, sim::Process* proc, uint32_t epoch) {
    push(cpu, Entry{nullptr, 0, access, nullptr, proc, epoch, eng_.now(), Kind::rmw});
}

void StoreBuffers::push_fence(CpuId cpu, sim::Process* proc, uint32_t epoch) {
    push(cpu, Entry{nullptr, 0, nullptr, nullptr, proc, epoch, eng_.now(), Kind::fence});
}

void StoreBuffers::push(CpuId cpu, Entry e) {
    cpus_[cpu].q.push_back(e);  // may reallocate: no Entry reference is held across a push
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
            at = std::max(eng_.now(), c.front().ready);
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
            if (head.ready > now) break;
            switch (head.kind) {
                case Kind::store:
                    // The request leaves; the store is written, and visible, once the line
                    // arrives owned: a transfer later (under the checker, a perturbed one).
                    c.left = now;
                    c.reserve_at = now + perturbed_line_transfer(protocol_.write_cost(cpu, head.var->line()));
                    c.phase = Phase::requested;
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
            // From here on the write is in the line's order: others see the new value.
            const sim::Picos wait = protocol_.reserve_write_issued(cpu, head.var->line(), c.left);
            head.var->value_ = head.value;
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
