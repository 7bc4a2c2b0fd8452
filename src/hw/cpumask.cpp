#include "hw/cpumask.h"

#include <fmt/format.h>

namespace ipisim::hw {

CpuMask CpuMask::all(uint32_t nr_cpus) {
    CpuMask m(nr_cpus);
    for (CpuId c = 0; c < nr_cpus; ++c) m.set(c);
    return m;
}

CpuMask CpuMask::of(uint32_t nr_cpus, std::initializer_list<CpuId> cpus) {
    CpuMask m(nr_cpus);
    for (CpuId c : cpus) m.set(c);
    return m;
}

bool CpuMask::test_and_set(CpuId c) {
    const bool was = test(c);
    set(c);
    return was;
}

void CpuMask::clear_all() {
    for (uint64_t& w : words_) w = 0;
}

uint32_t CpuMask::weight() const {
    uint32_t n = 0;
    for (uint64_t w : words_) n += static_cast<uint32_t>(std::popcount(w));
    return n;
}

bool CpuMask::empty() const {
    for (uint64_t w : words_) {
        if (w != 0) return false;
    }
    return true;
}

CpuId CpuMask::next(CpuId from) const {
    for (CpuId c = from; c < nr_;) {
        const uint64_t w = words_[c / 64] >> (c % 64);
        if (w != 0) {
            const CpuId found = c + static_cast<CpuId>(std::countr_zero(w));
            return found < nr_ ? found : nr_;
        }
        c = (c / 64 + 1) * 64;
    }
    return nr_;
}

CpuMask& CpuMask::operator&=(const CpuMask& o) {
    for (size_t i = 0; i < words_.size() && i < o.words_.size(); ++i) words_[i] &= o.words_[i];
    return *this;
}

CpuMask& CpuMask::operator|=(const CpuMask& o) {
    for (size_t i = 0; i < words_.size() && i < o.words_.size(); ++i) words_[i] |= o.words_[i];
    return *this;
}

CpuMask& CpuMask::andnot(const CpuMask& o) {
    for (size_t i = 0; i < words_.size() && i < o.words_.size(); ++i) words_[i] &= ~o.words_[i];
    return *this;
}

std::vector<CpuId> CpuMask::to_vector() const {
    std::vector<CpuId> v;
    for_each([&](CpuId c) { v.push_back(c); });
    return v;
}

std::string CpuMask::to_string() const {
    std::string s;
    CpuId c = first();
    while (c < nr_) {
        CpuId end = c;
        while (end + 1 < nr_ && test(end + 1)) ++end;
        if (!s.empty()) s += ",";
        s += end == c ? fmt::format("{}", c) : fmt::format("{}-{}", c, end);
        c = next(end + 1);
    }
    return s;
}

}  // namespace ipisim::hw
