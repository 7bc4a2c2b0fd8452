#include "hw/coherence/holder_set.h"

namespace ipisim::hw {

uint64_t* HolderPool::acquire() {
    if (free_.empty()) {
        chunks_.push_back(std::make_unique<uint64_t[]>(kChunk * words_));  // zeroed
        uint64_t* base = chunks_.back().get();
        for (size_t i = kChunk; i-- > 0;) free_.push_back(base + i * words_);
        carved_ += kChunk;
    }
    uint64_t* bits = free_.back();
    free_.pop_back();
    return bits;
}

void HolderSet::widen(HolderPool& pool) {
    uint64_t* bits = pool.acquire();
    for (uint32_t i = 0; i < count_; ++i) bits[ids_[i] >> 6] |= uint64_t{1} << (ids_[i] & 63);
    wide_ = bits;
    mode_ = Mode::wide;
}

void HolderSet::narrow(HolderPool& pool) {
    for (uint32_t w = 0; w < pool.words(); ++w) wide_[w] = 0;
    pool.release(wide_);
    mode_ = Mode::ids;
}

}  // namespace ipisim::hw
