#include "kernel/version.h"

#include <gtest/gtest.h>

namespace ipisim::kernel {
namespace {

TEST(Version, release_patch_and_rc_forms_parse_to_major_minor) {
    EXPECT_EQ(Version::parse("6.13"), (Version{6, 13}));
    EXPECT_EQ(Version::parse("5.17.2"), (Version{5, 17}));
    EXPECT_EQ(Version::parse("6.18-rc1"), (Version{6, 18}));
}

TEST(Version, versions_compare_numerically_not_as_text) {
    EXPECT_LT(*Version::parse("6.9"), *Version::parse("6.10"));
    EXPECT_GE(*Version::parse("6.17"), (Version{6, 17}));
    EXPECT_EQ(Version::parse("6.10")->text(), "6.10");
}

TEST(Version, anything_else_is_not_a_version) {
    for (const char* bad : {"", "6", "6.", ".13", "six.13", "6.13x", "6.13-", "6..13", "6.13.x", "99999.1"}) {
        EXPECT_FALSE(Version::parse(bad).has_value()) << bad;
    }
}

TEST(Version, the_model_knows_the_kernels_from_5_12_to_6_18) {
    EXPECT_EQ(unmodeled_version(Version{5, 12}), "");
    EXPECT_EQ(unmodeled_version(Version{6, 18}), "");
    EXPECT_EQ(
        unmodeled_version(Version{5, 11}).rfind("Linux 5.11 is older than the oldest kernel the model knows, 5.12", 0),
        0U);
    EXPECT_EQ(
        unmodeled_version(Version{6, 19}).rfind("Linux 6.19 is newer than the newest kernel the model knows, 6.18", 0),
        0U);
    EXPECT_NE(unmodeled_version(Version{9, 99}), "");
}

}  // namespace
}  // namespace ipisim::kernel
