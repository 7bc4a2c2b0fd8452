// Schedule exploration (`ipisim check`, docs/checker.md): the checking workload over seeds
// first_seed .. first_seed + seeds - 1, each with its own perturbation, on `jobs` threads. Each
// run is independent and deterministic per seed; the result names the lowest failing seed
// whatever the number of jobs (seeds are handed out in order, and seeds above a failure already
// found are skipped).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "check/check_stress.h"

namespace ipisim::check {

struct ExploreSpec {
    StressSpec base;  // seed is replaced per run
    uint64_t first_seed = 1;
    uint64_t seeds = 50;
    uint32_t jobs = 1;
};

struct ExploreResult {
    uint64_t seeds_run = 0;  // seeds completed (all of them when nothing failed)
    std::optional<uint64_t> failing_seed;
    StressResult failure;  // the failing seed's run
    uint64_t flushes = 0;  // over the seeds run
    uint64_t accesses = 0;
};

ExploreResult explore(const ExploreSpec& spec);

// The replay file of a failing run: protocol, machine, seed, workload size and perturbation.
std::string replay_file_text(const StressSpec& spec, const std::string& machine_name);
// The text `ipisim check` prints for a failing run: the seed, the diagnosis, where the trace is.
std::string failure_report(const StressSpec& spec, const StressResult& r);

}  // namespace ipisim::check
