#include "hw/coherence/coherence_protocol.h"

#include <algorithm>

#include "hw/check_hooks.h"

namespace ipisim::hw {

CoherenceProtocol::CoherenceProtocol(sim::Engine& eng, const Topology& topo, const CoherenceSpec& spec)
    : eng_(eng),
      topo_(topo),
      spec_(spec),
      ahead_(spec.fill_buffers > 1 ? spec.fill_buffers - 1 : 0),
      fills_(static_cast<size_t>(topo.nr_cpus()) * ahead_),
      fill_count_(ahead_ > 0 ? topo.nr_cpus() : 0, 0),
      fills_until_(ahead_ > 0 ? topo.nr_cpus() : 0) {}

sim::Picos CoherenceProtocol::leg(CpuId r, CpuId h, uint32_t home_node) const {
    const DistanceClass d = topo_.distance(r, h);
    sim::Picos t = spec_.transfer.at(d);
    if (d > DistanceClass::same_l3 && topo_.package_of(h) != topo_.package_of_node(home_node)) {
        t += spec_.remote_home_extra;
    }
    return t;
}

sim::Picos CoherenceProtocol::memory(CpuId cpu, uint32_t home_node) const {
    return topo_.package_of_node(home_node) == topo_.package_of(cpu) ? spec_.memory_local : spec_.memory_remote;
}

sim::Picos CoherenceProtocol::hit(CpuId cpu, CacheLine& line) {
    line.count_hit();
    if (ahead_ == 0 || fill_count_[cpu] == 0) return spec_.l1_hit;
    // The line may still be on its way: the access merges into its fill buffer.
    const sim::Picos now = eng_.now();
    if (fills_until_[cpu] <= now) return spec_.l1_hit;  // every fill has arrived
    const Fill* f = &fills_[static_cast<size_t>(cpu) * ahead_];
    for (const Fill* end = f + fill_count_[cpu]; f != end; ++f) {
        if (f->line == line.id() && f->arrival > now) return std::max(spec_.l1_hit, f->arrival - now);
    }
    return spec_.l1_hit;
}

uint32_t CoherenceProtocol::retire_fills(CpuId cpu) {
    const sim::Picos now = eng_.now();
    Fill* first = &fills_[static_cast<size_t>(cpu) * ahead_];
    Fill* kept = std::remove_if(first, first + fill_count_[cpu], [now](const Fill& f) { return f.arrival <= now; });
    fill_count_[cpu] = static_cast<uint8_t>(kept - first);
    return fill_count_[cpu];
}

uint32_t CoherenceProtocol::fills_in_flight(CpuId cpu) {
    return ahead_ == 0 ? 0 : retire_fills(cpu);
}

bool CoherenceProtocol::prefetch_read(CpuId cpu, CacheLine& line) {
    if (line.holds(cpu)) return true;
    if (ahead_ == 0 || retire_fills(cpu) == ahead_) return false;
    const sim::Picos wait = read_miss(cpu, line);  // not held (above)
    const sim::Picos arrival = eng_.now() + wait;
    fills_[(static_cast<size_t>(cpu) * ahead_) + fill_count_[cpu]] = Fill{line.id(), arrival};
    ++fill_count_[cpu];
    fills_until_[cpu] = std::max(fills_until_[cpu], arrival);
    return true;
}

sim::Picos CoherenceProtocol::serialize(CacheLine& line, sim::Picos cost, sim::Picos from, sim::Picos min_end) {
    cost = perturbed_line_transfer(cost);
    const sim::Picos now = eng_.now();
    const sim::Picos start = std::max(from, line.busy_until());
    // Not before the pipelined reads reserved ahead of it complete (see the header).
    const sim::Picos end = std::max({start + cost, line.pipelined_reads_end(), min_end});
    line.set_busy_until(end + spec_.line_occupancy);
    LineStats& s = line.miss_stats();
    ++s.transactions;
    s.queueing += start - from;
    s.busy += cost;
    return end - now;
}

sim::Picos CoherenceProtocol::pipelined(CacheLine& line, sim::Picos cost) {
    cost = perturbed_line_transfer(cost);
    const sim::Picos now = eng_.now();
    const sim::Picos start = std::max(now, line.busy_until());
    line.set_busy_until(start + spec_.line_occupancy);
    line.pipelined_reads_end() = std::max(line.pipelined_reads_end(), start + cost);
    LineStats& s = line.miss_stats();
    ++s.transactions;
    s.queueing += start - now;
    s.busy += spec_.line_occupancy;
    return start + cost - now;
}

sim::Picos CoherenceProtocol::read_miss(CpuId cpu, CacheLine& line) {
    LineStats& s = line.miss_stats();
    sim::Picos cost;
    const CpuId owner = line.owner();
    if (owner != kNoCpu && line.holder_count() > 1) {
        // Already shared: no modified copy to snoop, served back to back (see the header).
        cost = leg(cpu, owner, line.home_node());
        ++s.transfers[static_cast<size_t>(topo_.distance(cpu, owner))];
        line.add_holder(cpu);
        return pipelined(line, cost);
    }
    if (owner == kNoCpu) {
        cost = memory(cpu, line.home_node());
        ++s.memory_fetches;
        line.set_owner(cpu);
    } else {
        cost = leg(cpu, owner, line.home_node());
        ++s.transfers[static_cast<size_t>(topo_.distance(cpu, owner))];
    }
    line.add_holder(cpu);
    return serialize(line, cost, eng_.now(), eng_.now());
}

sim::Picos CoherenceProtocol::write_miss(CpuId cpu, CacheLine& line) {
    return write_miss_from(cpu, line, eng_.now(), eng_.now());
}

sim::Picos CoherenceProtocol::write_cost(CpuId cpu, const CacheLine& line) const {
    if (line.exclusive(cpu)) return spec_.l1_hit;
    if (line.owner() == kNoCpu) return memory(cpu, line.home_node());
    sim::Picos cost;
    line.for_each_holder([&](CpuId h) {
        if (h != cpu) cost = std::max(cost, leg(cpu, h, line.home_node()));
    });
    return cost;
}

sim::Picos CoherenceProtocol::reserve_write_issued(CpuId cpu, CacheLine& line, sim::Picos issued) {
    if (line.exclusive(cpu)) {
        line.count_hit();
        const sim::Picos end = issued + spec_.l1_hit;
        return end > eng_.now() ? end - eng_.now() : sim::Picos::zero();
    }
    // Not before a hit another holder began just before this reservation has ended: the
    // invariant that lets a spinner that loaded the old value be asleep when the write wakes it
    // (a write reserved now normally takes a whole transfer).
    return write_miss_from(cpu, line, issued, eng_.now() + spec_.l1_hit);
}

sim::Picos CoherenceProtocol::write_miss_from(CpuId cpu, CacheLine& line, sim::Picos from, sim::Picos min_end) {
    LineStats& s = line.miss_stats();
    sim::Picos cost;
    const CpuId owner = line.owner();
    if (owner == kNoCpu) {
        cost = memory(cpu, line.home_node());
        ++s.memory_fetches;
    } else {
        if (line.holds(cpu)) {
            ++s.upgrades;
        } else {
            ++s.transfers[static_cast<size_t>(topo_.distance(cpu, owner))];
        }
        line.for_each_holder([&](CpuId h) {
            if (h != cpu) cost = std::max(cost, leg(cpu, h, line.home_node()));
        });
    }
    s.invalidations += line.make_exclusive(cpu);
    return serialize(line, cost, from, min_end);
}

}  // namespace ipisim::hw
