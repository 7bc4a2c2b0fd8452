// The model side of `ipisim validate host`: the simulator's tlb_flush2 workload on the probed
// host.toml, with the same task counts and modes as the native run. Written against today's
// workload registry and machine loader (which does not read provenance marks yet: the file is
// read through probe::without_marks into a private machines directory); when the experiment
// layer and the schema-driven loader land, only this file changes.
#pragma once

#include <cstdint>
#include <string>

namespace ipisim::cli {

struct ModelTlbFlush2 {
    double loops_per_sec = 0;
    double ipis_per_loop = 0;           // IPIs sent per iteration (function-call IPIs, one per target)
    double tlb_invalidation_share = 0;  // CPU time in flush paths and IRQs
    uint64_t fingerprint = 0;
};

struct ModelRun {
    std::string host_toml;  // the probed machine file
    std::string mode;       // "threads" or "processes"
    uint32_t tasks = 1;
    bool lru_add_drain = false;  // the kernel's madvise drains the LRU batch (before 6.14)
    bool quick = false;          // shorter simulated window
    uint64_t seed = 1;
};

ModelTlbFlush2 predict_tlb_flush2(const ModelRun& run);

// Whether madvise(MADV_DONTNEED) on this kernel release still calls lru_add_drain(): true
// before 6.14 and when the release does not parse. "mm: remove unnecessary calls to
// lru_add_drain" was posted in 2024-12 (experiments/seed000_rar.toml); that it was merged for
// 6.14 is an assumption [A] (kernels from 6.15 on are after it either way).
bool kernel_drains_lru_on_madvise(const std::string& release);

}  // namespace ipisim::cli
