#include "hw/coherence/memory.h"

namespace ipisim::hw {

Memory::Memory(sim::Engine& eng, const Topology& topo, const CoherenceSpec& spec)
    : eng_(eng), topo_(topo), protocol_(eng, topo, spec), holder_pool_(topo.nr_cpus()) {}

CacheLine& Memory::new_line(std::string name, uint32_t home_node) {
    const auto id = static_cast<uint32_t>(lines_.size());
    LineCold& cold = cold_.emplace_back(LineCold{{}, std::move(name)});
    return lines_.emplace_back(id, home_node, holder_pool_, cold);
}

SimVar& Memory::new_var(CacheLine& line, uint64_t initial) {
    const uint32_t offset = line.claim_slot();
    return vars_.emplace_back(line, offset, initial);
}

SimVar& Memory::new_aligned_var(std::string name, uint32_t home_node, uint64_t initial) {
    return new_var(new_line(std::move(name), home_node), initial);
}

LineStats Memory::total_stats() const {
    LineStats total;
    for (const CacheLine& l : lines_) total += l.stats();
    return total;
}

AccessCompletion Memory::begin_write(CpuId cpu, SimVar& v) {
    return AccessCompletion{eng_, protocol_.reserve_write(cpu, v.line()), &v.line().written()};
}

sim::Task<uint64_t> Memory::load(CpuId cpu, SimVar& v) {
    const sim::Picos wait = protocol_.reserve_read(cpu, v.line());
    const uint64_t value = v.value_;
    co_await AccessCompletion{eng_, wait, nullptr};
    co_return value;
}

sim::Task<> Memory::store(CpuId cpu, SimVar& v, uint64_t value) {
    AccessCompletion done = begin_write(cpu, v);
    v.value_ = value;
    co_await done;
}

sim::Task<uint64_t> Memory::xchg(CpuId cpu, SimVar& v, uint64_t value) {
    AccessCompletion done = begin_write(cpu, v);
    const uint64_t old = v.value_;
    v.value_ = value;
    co_await done;
    co_return old;
}

sim::Task<uint64_t> Memory::cmpxchg(CpuId cpu, SimVar& v, uint64_t expected, uint64_t desired) {
    AccessCompletion done = begin_write(cpu, v);
    const uint64_t old = v.value_;
    if (old == expected) v.value_ = desired;
    co_await done;
    co_return old;
}

sim::Task<bool> Memory::try_cmpxchg(CpuId cpu, SimVar& v, uint64_t& expected, uint64_t desired) {
    const uint64_t old = co_await cmpxchg(cpu, v, expected, desired);
    const bool ok = old == expected;
    if (!ok) expected = old;
    co_return ok;
}

sim::Task<uint64_t> Memory::fetch_add(CpuId cpu, SimVar& v, uint64_t delta) {
    AccessCompletion done = begin_write(cpu, v);
    const uint64_t old = v.value_;
    v.value_ = old + delta;
    co_await done;
    co_return old;
}

sim::Task<uint64_t> Memory::fetch_or(CpuId cpu, SimVar& v, uint64_t mask) {
    AccessCompletion done = begin_write(cpu, v);
    const uint64_t old = v.value_;
    v.value_ = old | mask;
    co_await done;
    co_return old;
}

sim::Task<uint64_t> Memory::fetch_and(CpuId cpu, SimVar& v, uint64_t mask) {
    AccessCompletion done = begin_write(cpu, v);
    const uint64_t old = v.value_;
    v.value_ = old & mask;
    co_await done;
    co_return old;
}

sim::Task<bool> Memory::test_and_set_bit(CpuId cpu, SimVar& v, unsigned nr) {
    const uint64_t old = co_await fetch_or(cpu, v, uint64_t{1} << nr);
    co_return ((old >> nr) & 1U) != 0;
}

sim::Task<bool> Memory::test_and_clear_bit(CpuId cpu, SimVar& v, unsigned nr) {
    const uint64_t old = co_await fetch_and(cpu, v, ~(uint64_t{1} << nr));
    co_return ((old >> nr) & 1U) != 0;
}

sim::Task<> Memory::set_bit(CpuId cpu, SimVar& v, unsigned nr) {
    co_await fetch_or(cpu, v, uint64_t{1} << nr);
}

sim::Task<> Memory::clear_bit(CpuId cpu, SimVar& v, unsigned nr) {
    co_await fetch_and(cpu, v, ~(uint64_t{1} << nr));
}

}  // namespace ipisim::hw
