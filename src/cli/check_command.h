// `ipisim check`: schedule exploration of a flush protocol with the checker's monitors
// (docs/checker.md). Exit 0: no violation in any seed; 1: a violation (the seed, the diagnosis,
// the event log of the window before it, and a replay file); 2: bad input.
#pragma once

#include <cstdint>
#include <string>

#include "cli/data_dirs.h"

namespace ipisim::cli {

struct CheckArgs {
    std::string protocol;
    std::string machine;  // "": the first toy machine the protocol supports
    uint64_t seeds = 50;
    uint64_t first_seed = 1;
    uint32_t jobs = 0;  // 0: every hardware thread
    uint32_t ops = 200;
    bool no_perturb = false;
    // Store-buffer entries per CPU in place of the machine's `[coherence] store_buffer` (the
    // toy machines have none); -1: the machine's.
    int64_t store_buffer = -1;
    std::string replay;  // a replay file instead of the options above
    std::string out_dir = "results/check";
};

int check_command(const CheckArgs& args, const DataDirs& dirs);

}  // namespace ipisim::cli
