// `ipisim probe [--quick] [--out DIR]`: measures the host (src/probe/), prints a summary, and
// writes DIR/host.toml (a machine file: measured values marked P, the rest A), DIR/probe.json
// (every figure with its spread) and DIR/summary.txt. Partial data is not an error: whatever
// could not be measured is listed as skipped, with the reason, and the command exits 0.
#pragma once

#include <string>

namespace ipisim::cli {

struct ProbeArgs {
    bool quick = false;
    bool realtime = true;  // --no-realtime: measuring threads at normal priority
    std::string out_dir = "results/probe";
    std::string command;  // the command line as typed, recorded in every measured value's source
};

int probe_command(const ProbeArgs& args);

// "ipisim probe --quick --out x": the program's base name and its arguments.
std::string command_line(int argc, char** argv);

}  // namespace ipisim::cli
