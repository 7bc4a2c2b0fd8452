// Profile label categories (hw/cpu/profile.h): a label keeps the category its creator gives it.
#include <gtest/gtest.h>

#include <stdexcept>

#include "hw/cpu/profile.h"

using namespace ipisim;
using hw::LabelCategory;

TEST(ProfileLabel, a_label_keeps_the_category_its_creator_gave_it_and_an_untagged_lookup_leaves_it) {
    const uint32_t id = hw::profile_label("profile_test.tagged", LabelCategory::tlb_invalidation);
    EXPECT_EQ(hw::profile_label_category(id), LabelCategory::tlb_invalidation);
    EXPECT_EQ(hw::profile_label("profile_test.tagged"), id);
    EXPECT_EQ(hw::profile_label("profile_test.tagged", LabelCategory::none), id);
    EXPECT_EQ(hw::profile_label_category(id), LabelCategory::tlb_invalidation);
    // Tagging again with the same category is harmless.
    EXPECT_EQ(hw::profile_label("profile_test.tagged", LabelCategory::tlb_invalidation), id);
}

TEST(ProfileLabel, a_label_created_untagged_has_no_category_until_its_creator_tags_it) {
    const uint32_t id = hw::profile_label("profile_test.late");
    EXPECT_EQ(hw::profile_label_category(id), LabelCategory::none);
    EXPECT_EQ(hw::profile_label("profile_test.late", LabelCategory::ipi_send), id);
    EXPECT_EQ(hw::profile_label_category(id), LabelCategory::ipi_send);
}

TEST(ProfileLabel, tagging_one_label_with_two_categories_is_an_error) {
    hw::profile_label("profile_test.twice", LabelCategory::cross_call);
    EXPECT_THROW(hw::profile_label("profile_test.twice", LabelCategory::ipi_send), std::logic_error);
    EXPECT_EQ(hw::profile_label_category(hw::profile_label("profile_test.twice")), LabelCategory::cross_call);
}
