// `ipisim merge DIR... --out DIR [--force]`: combines the shard folders of one sweep
// (`ipisim run --shard i/N`) into the results one unsharded run writes, and prints its tables.
#pragma once

#include <string>
#include <vector>

#include "cli/data_dirs.h"

namespace ipisim::cli {

struct MergeArgs {
    std::vector<std::string> shards;  // the shard folders
    std::string out_dir;
    bool force = false;  // replace a folder of another experiment
};

int merge_command(const MergeArgs& args, const DataDirs& dirs);

}  // namespace ipisim::cli
