#include "hw/coherence/cache_line.h"

#include <stdexcept>

namespace ipisim::hw {

LineStats& LineStats::operator+=(const LineStats& o) {
    hits += o.hits;
    transactions += o.transactions;
    memory_fetches += o.memory_fetches;
    upgrades += o.upgrades;
    invalidations += o.invalidations;
    for (size_t i = 0; i < transfers.size(); ++i) transfers[i] += o.transfers[i];
    queueing += o.queueing;
    busy += o.busy;
    return *this;
}

CacheLine::CacheLine(uint32_t id, std::string name, uint32_t home_node, uint32_t nr_cpus)
    : id_(id), name_(std::move(name)), home_node_(home_node), words_((nr_cpus + 63) / 64, 0) {}

void CacheLine::add_holder(CpuId cpu) {
    uint64_t& w = words_[cpu >> 6];
    const uint64_t bit = uint64_t{1} << (cpu & 63);
    if ((w & bit) == 0) {
        w |= bit;
        ++holders_;
    }
}

uint32_t CacheLine::make_exclusive(CpuId cpu) {
    const uint32_t others = holders_ - (holds(cpu) ? 1U : 0U);
    for (uint64_t& w : words_) w = 0;
    holders_ = 0;
    add_holder(cpu);
    owner_ = cpu;
    return others;
}

uint32_t CacheLine::claim_slot() {
    constexpr uint32_t kSlots = 64 / sizeof(uint64_t);
    if (vars_ == kSlots) {
        throw std::length_error("cache line '" + name_ + "' already holds 8 variables");
    }
    return static_cast<uint32_t>(sizeof(uint64_t)) * vars_++;
}

}  // namespace ipisim::hw
