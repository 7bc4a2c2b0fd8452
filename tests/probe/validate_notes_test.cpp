// The warnings under the validate table: cells that did not measure what the model computes.
#include "cli/validate_notes.h"

#include <gtest/gtest.h>

namespace ipisim::cli {
namespace {

CellFigures cell(const std::string& mode, uint32_t tasks, std::optional<double> share, std::optional<double> ipis,
                 double model_ipis) {
    return CellFigures{mode, tasks, share, ipis, model_ipis};
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

}  // namespace
}  // namespace ipisim::cli
