// The model side of `validate host`: the simulator's tlb_flush2 on a probe-written host.toml
// (marks and all), deterministic, with one shootdown IPI per loop at two threads.
#include "cli/validate_model.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "probe/host_file.h"
#include "report/results_files.h"
#include "sample_results.h"

namespace ipisim::cli {
namespace {

std::string host_file() {
    const std::filesystem::path p = std::filesystem::temp_directory_path() / "ipisim-validate-model-test" / "host.toml";
    report::write_text_file(p, probe::host_machine_text(probe::testing::sample_results()));
    return p.string();
}

TEST(ValidateModel, one_thread_flushes_locally_and_two_threads_send_one_ipi_per_loop) {
    const std::string host = host_file();
    const ModelTlbFlush2 one = predict_tlb_flush2(ModelRun{host, "threads", 1, false, true, 1});
    const ModelTlbFlush2 two = predict_tlb_flush2(ModelRun{host, "threads", 2, false, true, 1});
    EXPECT_GT(one.loops_per_sec, 0);
    EXPECT_EQ(one.ipis_per_loop, 0);
    EXPECT_GT(two.ipis_per_loop, 0.95);
    EXPECT_LT(two.ipis_per_loop, 1.05);
    const ModelTlbFlush2 processes = predict_tlb_flush2(ModelRun{host, "processes", 2, false, true, 1});
    EXPECT_EQ(processes.ipis_per_loop, 0);
}

TEST(ValidateModel, the_same_host_file_and_seed_give_the_same_fingerprint) {
    const std::string host = host_file();
    const ModelTlbFlush2 a = predict_tlb_flush2(ModelRun{host, "threads", 2, false, true, 7});
    const ModelTlbFlush2 b = predict_tlb_flush2(ModelRun{host, "threads", 2, false, true, 7});
    EXPECT_EQ(a.fingerprint, b.fingerprint);
    EXPECT_EQ(a.loops_per_sec, b.loops_per_sec);
}

TEST(ValidateModel, kernels_before_6_14_drain_the_lru_batch_in_madvise) {
    EXPECT_TRUE(kernel_drains_lru_on_madvise("6.13.7-arch1"));
    EXPECT_FALSE(kernel_drains_lru_on_madvise("6.14.0"));
    EXPECT_FALSE(kernel_drains_lru_on_madvise("6.18.44-fc-v1045"));
    EXPECT_TRUE(kernel_drains_lru_on_madvise("not a version"));
}

}  // namespace
}  // namespace ipisim::cli
