// A cache line's holder set: inline for small machines and for lines few CPUs share, a pooled
// bitset only while a line is widely shared; the same answers as a plain set in every form.
#include "hw/coherence/holder_set.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "hw/coherence/cache_line.h"
#include "sim/rng.h"

namespace ipisim::hw {
namespace {

std::set<CpuId> members(const HolderSet& s, const HolderPool& pool) {
    std::set<CpuId> out;
    s.for_each([&](CpuId c) { EXPECT_TRUE(out.insert(c).second) << "cpu " << c << " listed twice"; }, pool.words());
    return out;
}

void check_against_a_plain_set(uint32_t nr_cpus, uint32_t max_sharers) {
    HolderPool pool(nr_cpus);
    HolderSet s(nr_cpus <= 64);
    std::set<CpuId> ref;
    sim::Rng rng(nr_cpus);
    for (int step = 0; step < 20000; ++step) {
        const auto cpu = static_cast<CpuId>(rng.uniform(0, max_sharers - 1) * (nr_cpus / max_sharers));
        if (rng.uniform(0, 9) == 0) {
            s.make_only(cpu, pool);
            ref = {cpu};
        } else {
            s.add(cpu, pool);
            ref.insert(cpu);
        }
        ASSERT_EQ(s.count(), ref.size()) << "step " << step;
        ASSERT_EQ(s.contains(cpu), true);
        const auto probe = static_cast<CpuId>(rng.uniform(0, nr_cpus - 1));
        ASSERT_EQ(s.contains(probe), ref.count(probe) == 1) << "step " << step << " cpu " << probe;
        if (step % 97 == 0) {
            ASSERT_EQ(members(s, pool), ref);
        }
    }
    EXPECT_LE(pool.in_use(), 1u);
}

TEST(HolderSet, a_one_word_set_on_a_64_cpu_machine_matches_a_plain_set) {
    check_against_a_plain_set(64, 64);
}

TEST(HolderSet, a_few_sharers_on_a_1024_cpu_machine_stay_inline_and_match_a_plain_set) {
    check_against_a_plain_set(1024, HolderSet::kInlineIds);
}

TEST(HolderSet, many_sharers_on_a_4096_cpu_machine_widen_to_a_bitset_and_match_a_plain_set) {
    check_against_a_plain_set(4096, 512);
}

TEST(HolderSet, a_widely_shared_line_borrows_one_bitset_and_returns_it_when_written) {
    HolderPool pool(1024);
    HolderSet s(false);
    for (CpuId c = 0; c < HolderSet::kInlineIds; ++c) s.add(c * 70, pool);
    EXPECT_EQ(pool.in_use(), 0u);  // still inline
    s.add(1023, pool);
    EXPECT_EQ(pool.in_use(), 1u);
    EXPECT_EQ(s.count(), HolderSet::kInlineIds + 1);
    EXPECT_TRUE(s.contains((HolderSet::kInlineIds - 1) * 70));
    EXPECT_TRUE(s.contains(1023));
    s.make_only(5, pool);
    EXPECT_EQ(pool.in_use(), 0u);
    EXPECT_EQ(s.count(), 1u);
    EXPECT_TRUE(s.contains(5));
    EXPECT_FALSE(s.contains(1023));
    EXPECT_FALSE(s.contains(0));
}

TEST(HolderSet, a_line_keeps_its_hot_state_in_one_aligned_cache_line) {
    EXPECT_EQ(alignof(CacheLine), 64u);
    EXPECT_EQ(sizeof(HolderSet), 32u);
}

}  // namespace
}  // namespace ipisim::hw
