// The host machine file (host.toml) made from a probe run, in the machine-file format of
// machines/*.toml: every value the probe measured is marked P with its date, command, sample
// count and spread (range = [p5, p95]); every value it cannot measure is marked A with a
// plausible range and a one-line rationale (docs/calibration.md rules). Generated with toml++.
#pragma once

#include <toml++/toml.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/table.h"
#include "hw/machine.h"
#include "probe/results.h"

namespace ipisim::probe {

// The machine file as a TOML tree.
toml::table host_machine_table(const ProbeResults& r);

// A value of the file fitted to the probe's own microbenchmarks (`ipisim calibrate`, the host
// fit of cli/probe_fit.h): written marked F in place of the A value, with its range kept.
struct FittedCost {
    std::string section;  // dotted, "intc.fabric"
    std::string key;      // "same_l3"
    double ns = 0;        // written with one decimal (ns_text)
    std::string source;
    std::string target;
    // The fit's 95% interval in ns (experiment/fit_uncertainty.h), written as `fit` outward to
    // 0.1 ns; none when the target does not determine the cost.
    std::optional<std::pair<double, double>> fit_ns;
};

// The file's text: a comment header (date, command, host facts, what was skipped, what was
// fitted) and the tree, with the `fitted` values in place.
std::string host_machine_text(const ProbeResults& r, const std::vector<FittedCost>& fitted = {});

// host.toml read by the machine loader, with the probe's own rule on top (every cost marked P or
// A: probe::check_host_file): every mistake is a ConfigError naming the file, line and key.
hw::MachineSpec load_host_machine(const std::string& text, const std::string& name);

// "23.4 ns": a duration in ns with one decimal (parses back to the same picoseconds).
std::string ns_text(double ns);

}  // namespace ipisim::probe
