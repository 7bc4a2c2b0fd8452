// /proc/interrupts counters summed over CPUs, for "interrupts per operation" deltas: the x86
// rows "TLB" (TLB shootdowns received) and "CAL" (function-call IPIs received), and any other
// row by its name ("LOC", "RES", a number for device IRQs).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ipisim::probe {

struct InterruptCounts {
    std::map<std::string, uint64_t> total;  // row name -> sum over the CPU columns
    [[nodiscard]] std::optional<uint64_t> get(const std::string& row) const;
};

// Parses the text of /proc/interrupts (header of CPU names, then "NAME: count count ... desc").
InterruptCounts parse_interrupts(const std::string& text);
// Reads and parses a file (default /proc/interrupts); nullopt if it cannot be read.
std::optional<InterruptCounts> read_interrupts(const std::string& path = "/proc/interrupts");

// after - before for one row; nullopt if either lacks it.
std::optional<uint64_t> delta(const InterruptCounts& before, const InterruptCounts& after, const std::string& row);

}  // namespace ipisim::probe
