// The set of CPUs holding a copy of a cache line, stored inline in 32 bytes:
//   * on machines of at most 64 CPUs, a one-word bitset;
//   * on larger machines, up to kInlineIds CPU numbers, and beyond that a bitset of the machine's
//     width borrowed from the memory's HolderPool and given back when the line becomes exclusive
//     again. Memory so grows with the lines that are actually shared, not lines x CPUs.
// Iteration order is not ascending (ids are kept in insertion order); it is deterministic.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "hw/topology.h"

namespace ipisim::hw {

// Zeroed bitsets of `words` 64-bit words each, recycled; addresses stay valid while the pool lives.
class HolderPool {
public:
    explicit HolderPool(uint32_t nr_cpus) : words_((nr_cpus + 63) / 64) {}
    HolderPool(const HolderPool&) = delete;
    HolderPool& operator=(const HolderPool&) = delete;

    [[nodiscard]] uint32_t words() const { return words_; }
    uint64_t* acquire();
    // `bits` must be all zero again.
    void release(uint64_t* bits) { free_.push_back(bits); }
    // Bitsets handed out and not returned.
    [[nodiscard]] size_t in_use() const { return carved_ - free_.size(); }

private:
    static constexpr size_t kChunk = 64;  // bitsets per allocation
    uint32_t words_;
    std::vector<std::unique_ptr<uint64_t[]>> chunks_;
    std::vector<uint64_t*> free_;
    size_t carved_ = 0;
};

class HolderSet {
public:
    static constexpr uint32_t kInlineIds = 12;

    // `word_mode`: the machine has at most 64 CPUs.
    explicit HolderSet(bool word_mode) : mode_(word_mode ? Mode::word : Mode::ids) { word_ = 0; }

    [[nodiscard]] uint32_t count() const { return count_; }

    [[nodiscard]] bool contains(CpuId cpu) const {
        if (mode_ == Mode::word) return ((word_ >> cpu) & 1U) != 0;
        if (mode_ == Mode::ids) {
            for (uint32_t i = 0; i < count_; ++i) {
                if (ids_[i] == cpu) return true;
            }
            return false;
        }
        return ((wide_[cpu >> 6] >> (cpu & 63)) & 1U) != 0;
    }

    // Adds cpu if absent.
    void add(CpuId cpu, HolderPool& pool) {
        if (mode_ == Mode::word) {
            const uint64_t bit = uint64_t{1} << cpu;
            if ((word_ & bit) == 0) {
                word_ |= bit;
                ++count_;
            }
        } else if (!contains(cpu)) {
            if (mode_ == Mode::ids && count_ == kInlineIds) widen(pool);
            if (mode_ == Mode::ids) {
                ids_[count_] = static_cast<uint16_t>(cpu);
            } else {
                wide_[cpu >> 6] |= uint64_t{1} << (cpu & 63);
            }
            ++count_;
        }
    }

    // cpu becomes the only holder.
    void make_only(CpuId cpu, HolderPool& pool) {
        if (mode_ == Mode::word) {
            word_ = uint64_t{1} << cpu;
        } else {
            if (mode_ == Mode::wide) narrow(pool);
            ids_[0] = static_cast<uint16_t>(cpu);
        }
        count_ = 1;
    }

    template <class F>
    void for_each(F&& f, uint32_t words) const {
        if (mode_ == Mode::word) {
            for_each_bit(word_, 0, f);
        } else if (mode_ == Mode::ids) {
            for (uint32_t i = 0; i < count_; ++i) f(static_cast<CpuId>(ids_[i]));
        } else {
            for (uint32_t w = 0; w < words; ++w) for_each_bit(wide_[w], w * 64, f);
        }
    }

private:
    enum class Mode : uint8_t { word, ids, wide };

    template <class F>
    static void for_each_bit(uint64_t bits, uint32_t base, F& f) {
        for (; bits != 0; bits &= bits - 1) f(static_cast<CpuId>(base + static_cast<uint32_t>(std::countr_zero(bits))));
    }
    void widen(HolderPool& pool);
    void narrow(HolderPool& pool);

    union {
        uint64_t word_;             // Mode::word
        uint16_t ids_[kInlineIds];  // Mode::ids (CPU numbers < kMaxCpus = 8192)
        uint64_t* wide_;            // Mode::wide: pool.words() words
    };
    uint16_t count_ = 0;
    Mode mode_;
};
static_assert(sizeof(HolderSet) == 32);
static_assert(kMaxCpus <= 65536);

}  // namespace ipisim::hw
