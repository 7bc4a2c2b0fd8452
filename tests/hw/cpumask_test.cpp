#include <gtest/gtest.h>

#include "hw/cpumask.h"

using ipisim::hw::CpuMask;

TEST(CpuMask, iterates_in_ascending_cpu_order_across_words) {
    CpuMask m = CpuMask::of(200, {130, 3, 64, 199, 0});
    EXPECT_EQ(m.to_vector(), (std::vector<uint32_t>{0, 3, 64, 130, 199}));
    EXPECT_EQ(m.weight(), 5u);
    EXPECT_EQ(m.next(4), 64u);
    EXPECT_EQ(m.next(200), 200u);
}

TEST(CpuMask, prints_ranges_like_the_kernel) {
    CpuMask m = CpuMask::of(16, {0, 1, 2, 3, 8, 10, 11});
    EXPECT_EQ(m.to_string(), "0-3,8,10-11");
}

TEST(CpuMask, set_operations_combine_masks) {
    CpuMask a = CpuMask::of(8, {1, 2, 3});
    CpuMask b = CpuMask::of(8, {2, 3, 4});
    CpuMask c = a;
    c &= b;
    EXPECT_EQ(c.to_vector(), (std::vector<uint32_t>{2, 3}));
    c = a;
    c.andnot(b);
    EXPECT_EQ(c.to_vector(), (std::vector<uint32_t>{1}));
    EXPECT_FALSE(c.test_and_set(5));
    EXPECT_TRUE(c.test_and_set(5));
}
