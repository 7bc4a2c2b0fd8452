// A fixed probe result (no measurement runs): the input of the host-file tests.
#pragma once

#include <string>

#include "probe/results.h"

namespace ipisim::probe::testing {

// Measured: core clock 3000/3100/3200 MHz, same_l3 99/100/101 ns, syscall 190/191/192 ns, pipe
// ping-pong 3500/3510/3520 ns; nothing else. The topology comes from tests/data/hwloc/<xml>.
ProbeResults sample_results(const std::string& xml = "epyc_vm_2cpu.xml", bool virtualized = true);

// 1-based number of the first line of `text` starting with `prefix` (0 if none).
int line_starting(const std::string& text, const std::string& prefix);
// `text` with that whole line replaced.
std::string replace_line(const std::string& text, const std::string& prefix, const std::string& line);

}  // namespace ipisim::probe::testing
