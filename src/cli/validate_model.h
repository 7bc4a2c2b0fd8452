// The model side of `ipisim validate host`: the simulator's tlb_flush2 on the probed host.toml,
// with the same modes and task counts as the native run, as an experiment made in memory and
// run through the experiment layer like any experiment file:
//
//   [experiment]  workload = "tlb_flush2", machine = "host" (host.toml embedded as [machine])
//   [kernel]      version = the host's `uname -r` release, tlb_flush = "ipi" (x86);
//                 madvise_lru_add_drain takes that version's default (kernel/kernel_config.h)
//   [params]      warmup / measure: the seed 000 windows (2 ms / 10 ms; --quick 1 ms / 5 ms)
//   [sweep]       mode = [...], threads = [...]  (mode outermost, as the table prints)
//
// prepare_model() reads and checks everything (the machine, the kernel release, every point)
// before any native measurement runs; run_model() runs the prepared points.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiment/runner.h"

namespace ipisim::cli {

struct ModelSetup {
    std::string host_toml;       // the probed machine file
    std::string kernel_release;  // `uname -r` of the host: the model's [kernel] version
    std::vector<std::string> modes = {"threads", "processes"};
    std::vector<uint32_t> tasks = {1};
    bool quick = false;  // shorter simulated windows
    uint64_t seed = 1;
};

struct ModelTlbFlush2 {
    std::string mode;
    uint32_t tasks = 0;
    double loops_per_sec = 0;
    double ipis_per_loop = 0;           // IPIs sent per iteration (function-call IPIs, one per target)
    double tlb_invalidation_share = 0;  // CPU time in flush paths and IRQs
    uint64_t fingerprint = 0;
};

// The [kernel] version the model runs for a `uname -r` release: the release itself when it
// reads as a Linux version ("6.18.44-fc-v1045"), else its leading MAJOR.MINOR ("6.1.0+" gives
// "6.1"); the nearest kernel the model knows when that is outside kernel::kOldestModeled ..
// kNewestModeled (model_kernel_note() says so). A release with no MAJOR.MINOR is a ConfigError
// at kernel.version naming the release.
std::string model_kernel_version(const std::string& release);

// "" when the model knows the release's kernel, else the sentence that says which kernel it
// models instead and why (for the report and the written experiment files).
std::string model_kernel_note(const std::string& release);

// The in-memory experiment (named "validate_host_model"); its messages name host_toml.
experiment::Experiment model_experiment(const ModelSetup& setup);

// model_experiment + experiment::prepare_experiment: every mistake is reported here.
experiment::PreparedExperiment prepare_model(const ModelSetup& setup);

struct ModelOutcome {
    report::ExperimentResults results;  // as `ipisim run` has them (experiment::write_experiment_outputs)
    std::vector<ModelTlbFlush2> cells;  // one per point: modes outer, task counts inner
};

// Runs every prepared point.
ModelOutcome run_model(experiment::PreparedExperiment& prepared);

}  // namespace ipisim::cli
