// The host machine file (host.toml) made from a probe run, in the machine-file format of
// machines/*.toml: every value the probe measured is marked P with its date, command, sample
// count and spread (range = [p5, p95]); every value it cannot measure is marked A with a
// plausible range and a one-line rationale (docs/calibration.md rules). Generated with toml++.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "config/table.h"
#include "probe/results.h"

namespace ipisim::probe {

// The machine file as a TOML tree.
toml::table host_machine_table(const ProbeResults& r);

// The file's text: a comment header (date, command, host facts, what was skipped) and the tree.
std::string host_machine_text(const ProbeResults& r);

// A copy of the document with every marked value `{ value = ..., mark = ... }` replaced by its
// plain value, for the current machine loader (which does not read marks yet).
// `name` is the file name used in messages; source lines are kept.
config::Document without_marks(const std::string& text, const std::string& name);

// "23.4 ns": a duration in ns with one decimal (parses back to the same picoseconds).
std::string ns_text(double ns);

}  // namespace ipisim::probe
