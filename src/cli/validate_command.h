// `ipisim validate host [--host FILE] [--tasks 1,2,...] [--quick] [--seed N]`: runs our native
// will-it-scale tlb_flush2 (src/probe/tlb_flush2_native.h) on this machine, threads and
// processes, for each task count, and the simulator's tlb_flush2 on the probed host.toml
// (cli/validate_model.h), and prints loops/s measured vs predicted with the error per cell,
// the 2-task/1-task style scaling ratios, and shootdown IPIs per loop from /proc/interrupts
// beside the model's. Nothing is fitted to these cells: they are the validation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ipisim::cli {

struct ValidateHostArgs {
    std::string host = "results/probe/host.toml";  // written by `ipisim probe`
    std::vector<uint32_t> tasks;                   // empty: 1, 2, 4, ... and every CPU
    bool quick = false;
    bool realtime = true;  // tasks SCHED_FIFO where permitted (--no-realtime: normal priority)
    uint64_t seed = 1;
};

int validate_host_command(const ValidateHostArgs& args);

}  // namespace ipisim::cli
