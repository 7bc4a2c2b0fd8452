// `ipisim merge DIR... --out DIR`: the shard folders of one sweep (--shard i/N, shard.h) into
// the results of one run: results.json, results.csv and config.toml byte for byte what the
// unsharded run writes. Shards of different experiments, configurations, versions or commits
// (any member of results.json besides its shard, fingerprint and rows), an incomplete, missing
// or duplicate shard are refused (config::ConfigError, exit 2) before anything is written.
#pragma once

#include <filesystem>
#include <vector>

#include "experiment/results_folder.h"
#include "report/results.h"

namespace ipisim::experiment {

struct MergedShards {
    FolderIdentity identity;            // of the whole run (no shard)
    report::ExperimentResults results;  // every point, in order, with the shards' common header
};

MergedShards read_shards(const std::vector<std::filesystem::path>& dirs);

}  // namespace ipisim::experiment
