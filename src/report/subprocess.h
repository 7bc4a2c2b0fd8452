// Runs a shell command as a child process and captures what it prints (stdout and stderr
// together), for the external tools the reports use (gnuplot).
//
// Unlike popen(), the child starts with no blocked signals and default SIGINT/SIGTERM handling:
// ipisim blocks both in every thread to take them in one place (experiment/interrupt.h), and a
// child inheriting that mask would ignore Ctrl-C.
#pragma once

#include <string>

namespace ipisim::report {

struct CommandResult {
    int status = 0;      // the exit status; 128 + N when killed by signal N
    std::string output;  // stdout and stderr, interleaved as written
};

// `/bin/sh -c command`. A failure to start is std::runtime_error.
CommandResult run_shell_command(const std::string& command);

}  // namespace ipisim::report
