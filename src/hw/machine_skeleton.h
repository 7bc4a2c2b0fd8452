// A machine-file skeleton generated from the machine schema: every key the schema applies to
// an arch and topology, every cost a placeholder marked A with a placeholder range and the
// source "TODO: measure with ipisim probe". Used by `ipisim machine import` (hwloc XML); it
// loads for x86 and arm64 alike because the schema, not a hand-written list, decides the keys.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "hw/machine.h"

namespace ipisim::hw {

struct MachineSkeleton {
    TopologySpec topology;
    Arch arch = Arch::x86;
    Vendor vendor = Vendor::generic;
    std::string description;
};

inline constexpr const char* kPlaceholderSource = "TODO: measure with ipisim probe";

// The machine file of the skeleton. It is checked by loading it: a topology the model cannot
// hold is a config::ConfigError (file "skeleton").
toml::table machine_skeleton(const MachineSkeleton& s);

}  // namespace ipisim::hw
