// The warnings under the validate table: cells that did not measure what the model computes.
#include "cli/validate_notes.h"

#include "probe/placement.h"

#include <gtest/gtest.h>

namespace ipisim::cli {
namespace {

CellFigures cell(const std::string& mode, uint32_t tasks, std::optional<double> share, std::optional<double> ipis,
                 double model_ipis) {
    CellFigures c;
    c.mode = mode;
    c.tasks = tasks;
    c.cpu_share = share;
    c.measured_ipis_per_loop = ipis;
    c.model_ipis_per_loop = model_ipis;
    return c;
}

CellFigures placed(double probed, double before, double after, int attempts) {
    CellFigures c = cell("threads", 2, 0.95, 1.0, 1.0);
    c.placement = probe::PlacementCheck{0, 1, probed, before, after, attempts};
    return c;
}

TEST(ValidateNotes, cells_that_measured_what_the_model_computes_get_no_note) {
    EXPECT_TRUE(validate_notes({cell("threads", 1, 0.95, 0.0, 0.0), cell("threads", 2, 0.94, 0.999, 1.004),
                                cell("processes", 1, 0.95, 0.0, 0.0), cell("processes", 2, 0.95, 0.0, 0.0)})
                    .empty());
}

TEST(ValidateNotes, a_threads_cell_with_few_of_the_models_shootdown_ipis_is_flagged) {
    const std::vector<std::string> notes =
        validate_notes({cell("threads", 1, 0.9, 0.0, 0.0), cell("threads", 2, 0.9, 0.021, 1.005)});
    ASSERT_EQ(notes.size(), 1U);
    EXPECT_EQ(notes[0].rfind("threads x2: 0.021 shootdown IPIs per loop received where the model sends 1.005", 0), 0U);
}

TEST(ValidateNotes, half_the_models_ipis_is_not_flagged_and_just_below_is) {
    EXPECT_TRUE(validate_notes({cell("threads", 1, {}, {}, 0), cell("threads", 2, {}, 0.5, 1.0)}).empty());
    EXPECT_EQ(validate_notes({cell("threads", 1, {}, {}, 0), cell("threads", 2, {}, 0.499, 1.0)}).size(), 1U);
}

TEST(ValidateNotes, unknown_interrupt_counts_and_cpu_time_are_not_flagged) {
    EXPECT_TRUE(validate_notes({cell("threads", 1, {}, {}, 0), cell("threads", 2, {}, {}, 1.0)}).empty());
}

TEST(ValidateNotes, tasks_with_less_than_half_their_cpus_are_flagged) {
    const std::vector<std::string> notes =
        validate_notes({cell("processes", 1, 0.078, 0.0, 0.0), cell("processes", 2, 0.5, 0.0, 0.0)});
    ASSERT_EQ(notes.size(), 1U);
    EXPECT_EQ(notes[0],
              "processes x1: the tasks had 0.078 of their CPUs: \"loops/s owning CPUs\" extrapolates from that share");
}

TEST(ValidateNotes, one_task_count_gives_no_scaling_ratio_and_says_so) {
    const std::vector<std::string> notes = validate_notes({cell("threads", 1, 1.0, 0.0, 0.0)});
    ASSERT_EQ(notes.size(), 1U);
    EXPECT_EQ(notes[0].rfind("scaling: no ratio", 0), 0U);
    EXPECT_EQ(validate_notes({cell("threads", 2, 1.0, 1.0, 1.0)}).size(), 1U);
}

// The two placements seen on the 2-vCPU CI machine: ~27 ns and ~100 ns between CPUs 0 and 1.
TEST(ValidateNotes, a_cell_measured_under_another_vcpu_placement_than_probed_is_flagged) {
    EXPECT_TRUE(validate_notes({cell("threads", 1, 0.95, 0.0, 0.0), placed(27.5, 28.1, 26.9, 1)}).empty());
    const std::vector<std::string> notes =
        validate_notes({cell("threads", 1, 0.95, 0.0, 0.0), placed(27.5, 101.0, 98.2, 3)});
    ASSERT_EQ(notes.size(), 1U);
    EXPECT_EQ(notes[0].rfind("threads x2: a cache line between CPUs 0 and 1 took 101.0 ns before and 98.2 ns after the "
                             "measurement (3 attempts), 27.5 ns when probed: the host placed the CPUs differently",
                             0),
              0U)
        << notes[0];
    // A change during the measurement (one check each side) is flagged too.
    EXPECT_EQ(validate_notes({cell("threads", 1, 0.95, 0.0, 0.0), placed(27.5, 27.0, 100.0, 2)}).size(), 1U);
}

TEST(ValidateNotes, the_placement_matches_within_a_factor_of_one_and_a_half_either_way) {
    EXPECT_TRUE(probe::same_placement(100.0, 150.0, 66.7));
    EXPECT_FALSE(probe::same_placement(100.0, 151.0, 100.0));
    EXPECT_FALSE(probe::same_placement(100.0, 100.0, 66.0));
    EXPECT_FALSE(probe::same_placement(0.0, 10.0, 10.0));  // nothing probed
}

}  // namespace
}  // namespace ipisim::cli
