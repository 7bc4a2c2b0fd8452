// A set of CPUs (struct cpumask): a fixed-size bitset sized to the machine, iterated in
// ascending CPU order like for_each_cpu().
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/topology.h"

namespace ipisim::hw {

class CpuMask {
public:
    CpuMask() = default;
    explicit CpuMask(uint32_t nr_cpus) : nr_(nr_cpus), words_((nr_cpus + 63) / 64, 0) {}
    static CpuMask all(uint32_t nr_cpus);
    static CpuMask of(uint32_t nr_cpus, std::initializer_list<CpuId> cpus);

    [[nodiscard]] uint32_t nr_cpus() const { return nr_; }
    void set(CpuId c) { words_[c / 64] |= bit(c); }
    void clear(CpuId c) { words_[c / 64] &= ~bit(c); }
    [[nodiscard]] bool test(CpuId c) const { return (words_[c / 64] & bit(c)) != 0; }
    // Sets c and returns whether it was already set (cpumask_test_and_set_cpu).
    bool test_and_set(CpuId c);
    void clear_all();
    [[nodiscard]] uint32_t weight() const;
    [[nodiscard]] bool empty() const;
    // First set CPU >= from, or nr_cpus() if none (cpumask_next).
    [[nodiscard]] CpuId next(CpuId from) const;
    [[nodiscard]] CpuId first() const { return next(0); }

    CpuMask& operator&=(const CpuMask& o);
    CpuMask& operator|=(const CpuMask& o);
    // this &= ~o
    CpuMask& andnot(const CpuMask& o);
    bool operator==(const CpuMask& o) const { return nr_ == o.nr_ && words_ == o.words_; }

    template <class F>
    void for_each(F&& f) const {
        for (size_t w = 0; w < words_.size(); ++w) {
            uint64_t bits = words_[w];
            while (bits != 0) {
                const auto b = static_cast<uint32_t>(std::countr_zero(bits));
                f(static_cast<CpuId>(w * 64 + b));
                bits &= bits - 1;
            }
        }
    }
    [[nodiscard]] std::vector<CpuId> to_vector() const;
    // "0-3,8,10-11"
    [[nodiscard]] std::string to_string() const;

private:
    static uint64_t bit(CpuId c) { return uint64_t{1} << (c % 64); }
    uint32_t nr_ = 0;
    std::vector<uint64_t> words_;
};

}  // namespace ipisim::hw
