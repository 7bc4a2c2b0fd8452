// check::VarTable and var_index: the per-variable tables of the deadlock monitor's hooks.
#include "check/var_table.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "support/test_machine.h"

namespace ipisim::check {
namespace {

struct Rig {
    Rig() : m(ipisim::test::load_test_machine("toy4")), mem(eng, m.topology, m.coherence) {}
    hw::MachineSpec m;
    sim::Engine eng;
    hw::Memory mem;
};

TEST(VarTable, every_variable_of_a_memory_has_its_own_index) {
    Rig r;
    hw::CacheLine& shared = r.mem.new_line("shared", 0);
    hw::SimVar& a = r.mem.new_var(shared);
    hw::SimVar& b = r.mem.new_var(shared);
    hw::SimVar& c = r.mem.new_aligned_var("c", 0);
    EXPECT_EQ(var_index(a), 0U);
    EXPECT_EQ(var_index(b), 1U);
    EXPECT_EQ(var_index(c), 8U);  // the second line's first slot
}

TEST(VarTable, an_entry_is_found_until_it_is_erased_and_a_neighbour_never_sees_it) {
    Rig r;
    hw::CacheLine& shared = r.mem.new_line("shared", 0);
    hw::SimVar& a = r.mem.new_var(shared);
    hw::SimVar& b = r.mem.new_var(shared);
    hw::SimVar& far = r.mem.new_aligned_var("far", 0);
    VarTable<hw::CpuId> t;
    EXPECT_EQ(t.find(&a), nullptr);
    EXPECT_EQ(t.find(nullptr), nullptr);
    t.set(far, 3);  // grows the table past a and b
    EXPECT_FALSE(t.contains(&a));
    EXPECT_FALSE(t.contains(&b));
    t.set(a, 2);
    t.set(a, 1);  // replaced, not added
    ASSERT_NE(t.find(&a), nullptr);
    EXPECT_EQ(*t.find(&a), 1U);
    EXPECT_FALSE(t.contains(&b));
    t.erase(b);  // absent: nothing happens
    EXPECT_EQ(*t.find(&a), 1U);
    t.erase(a);
    EXPECT_FALSE(t.contains(&a));
    EXPECT_EQ(*t.find(&far), 3U);
}

TEST(VarTable, a_variable_of_another_memory_at_the_same_place_is_not_mistaken_for_it) {
    Rig r1;
    Rig r2;
    hw::SimVar& v1 = r1.mem.new_aligned_var("v", 0);
    hw::SimVar& v2 = r2.mem.new_aligned_var("v", 0);
    ASSERT_EQ(var_index(v1), var_index(v2));
    VarTable<hw::CpuId> t;
    t.set(v1, 2);
    EXPECT_FALSE(t.contains(&v2));
    t.erase(v2);
    EXPECT_TRUE(t.contains(&v1));
}

TEST(VarTable, iteration_visits_every_entry_in_place_order) {
    Rig r;
    hw::SimVar& x = r.mem.new_aligned_var("x", 0);
    hw::SimVar& y = r.mem.new_aligned_var("y", 0);
    hw::SimVar& z = r.mem.new_aligned_var("z", 0);
    VarTable<hw::CpuId> t;
    t.set(z, 30);
    t.set(x, 10);
    t.set(y, 20);
    t.erase(y);
    std::vector<std::pair<const hw::SimVar*, hw::CpuId>> seen;
    t.for_each([&](const hw::SimVar* v, hw::CpuId c) { seen.emplace_back(v, c); });
    const std::vector<std::pair<const hw::SimVar*, hw::CpuId>> want{{&x, 10}, {&z, 30}};
    EXPECT_EQ(seen, want);
}

}  // namespace
}  // namespace ipisim::check
