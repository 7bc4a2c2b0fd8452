#include "hw/intc/delivery_fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "hw/check_hooks.h"
#include "hw/cpu/cpu.h"
#include "hw/observer.h"

namespace ipisim::hw {

using sim::Picos;

DeliveryFabric::DeliveryFabric(sim::Engine& eng, const MachineSpec& spec, std::vector<Cpu*> cpus)
    : eng_(eng),
      spec_(spec),
      cpus_(std::move(cpus)),
      capacity_(spec.intc.capacity),
      accept_(spec.intc.accept),
      next_accept_(spec.topology.nr_cpus(), Picos::zero()) {
    if (cpus_.size() != spec_.topology.nr_cpus()) {
        throw std::invalid_argument(fmt::format("delivery fabric: {} CPUs given, machine \"{}\" has {}", cpus_.size(),
                                                spec_.name, spec_.topology.nr_cpus()));
    }
    if (capacity_ == 0) throw std::invalid_argument("delivery fabric: capacity must be at least 1");
    if (Observer* o = observer()) o->machine_built(eng_, spec_, cpus_);
}

Picos DeliveryFabric::latency(CpuId sender, CpuId target) const {
    return perturbed_delivery(spec_.intc.delivery.at(spec_.topology.distance(sender, target)));
}

uint32_t DeliveryFabric::allocate(const Message& m) {
    if (free_.empty()) {
        messages_.push_back(m);
        return static_cast<uint32_t>(messages_.size() - 1);
    }
    const uint32_t i = free_.back();
    free_.pop_back();
    messages_[i] = m;
    return i;
}

void DeliveryFabric::send(CpuId sender, CpuId target, uint32_t vector, DeliveryMode mode) {
    const uint32_t n = spec_.topology.nr_cpus();
    if (sender >= n || target >= n) {
        throw std::out_of_range(
            fmt::format("delivery fabric: message cpu{} -> cpu{} on a {}-CPU machine", sender, target, n));
    }
    if (mode == DeliveryMode::fixed && cpus_[target] == nullptr) {
        throw std::logic_error(fmt::format("delivery fabric: cpu{} has no CPU model to interrupt", target));
    }
    if (mode == DeliveryMode::rar && !rar_hook_) {
        throw std::logic_error("delivery fabric: RAR message but no RAR hook is registered");
    }
    ++stats_.messages;
    const uint32_t i = allocate(Message{sender, target, vector, mode, eng_.now()});
    if (occupied_ < capacity_) {
        start(i);
    } else {
        ++stats_.slot_waits;
        waiting_.push_back(i);
    }
    stats_.max_in_flight = std::max(stats_.max_in_flight, in_flight());
    if (Observer* o = observer())
        o->message_sent({sender, target, vector, mode == DeliveryMode::rar, i, in_flight(), eng_.now()});
}

void DeliveryFabric::start(uint32_t i) {
    ++occupied_;
    const Message& m = messages_[i];
    stats_.slot_wait_time += eng_.now() - m.queued_at;
    eng_.schedule_in(latency(m.sender, m.target), &DeliveryFabric::on_arrive, this, i, kFabricTagBase + m.target,
                     sim::Priority::Urgent);
}

void DeliveryFabric::on_arrive(void* obj, uint32_t i) {
    auto& f = *static_cast<DeliveryFabric*>(obj);
    Message& m = f.messages_[i];
    const Picos now = f.eng_.now();
    Picos& next = f.next_accept_[m.target];
    const Picos at = std::max(now, next);
    next = at + f.accept_;
    if (at == now) {
        f.deliver(i);
        return;
    }
    ++f.stats_.accept_waits;
    f.stats_.accept_wait_time += at - now;
    f.eng_.schedule_at(at, &DeliveryFabric::on_deliver, obj, i, kFabricTagBase + m.target, sim::Priority::Urgent);
}

void DeliveryFabric::on_deliver(void* obj, uint32_t i) {
    static_cast<DeliveryFabric*>(obj)->deliver(i);
}

void DeliveryFabric::deliver(uint32_t i) {
    const Message m = messages_[i];
    free_.push_back(i);
    --occupied_;
    ++stats_.delivered;
    if (!waiting_.empty()) {
        const uint32_t next = waiting_.front();
        waiting_.pop_front();
        start(next);
    }
    if (Observer* o = observer())
        o->message_delivered({m.sender, m.target, m.vector, m.mode == DeliveryMode::rar, i, in_flight(), eng_.now()});
    if (m.mode == DeliveryMode::rar) {
        ++stats_.rar_messages;
        rar_hook_(m.target, m.sender);
    } else {
        cpus_[m.target]->raise(sim::Interrupt{m.vector, m.sender});
    }
}

}  // namespace ipisim::hw
