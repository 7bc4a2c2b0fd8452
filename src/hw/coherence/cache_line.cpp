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

CacheLine::CacheLine(uint32_t id, uint32_t home_node, HolderPool& pool, LineCold& cold)
    : home_node_(home_node), holders_(pool.words() == 1), id_(id), pool_(&pool), cold_(&cold) {}

uint32_t CacheLine::claim_slot() {
    constexpr uint32_t kSlots = 64 / sizeof(uint64_t);
    if (vars_ == kSlots) {
        throw std::length_error("cache line '" + name() + "' already holds 8 variables");
    }
    return static_cast<uint32_t>(sizeof(uint64_t)) * vars_++;
}

}  // namespace ipisim::hw
