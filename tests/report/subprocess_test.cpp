// report::run_shell_command (report/subprocess.h): output captured, exit status kept, and the
// child free of the signal mask ipisim's threads run with.
#include "report/subprocess.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <string>

using namespace ipisim;

namespace {

TEST(Subprocess, stdout_and_stderr_are_captured_and_the_exit_status_kept) {
    const report::CommandResult r = report::run_shell_command("echo out; echo err >&2; exit 3");
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(r.output, "out\nerr\n");
}

TEST(Subprocess, a_child_of_a_thread_that_blocks_sigint_starts_with_no_signal_blocked) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigset_t old;
    ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &set, &old), 0);
    // gnuplot started under ipisim's mask ignored Ctrl-C; the child's own mask must be empty.
    const report::CommandResult r = report::run_shell_command("grep '^SigBlk:' /proc/self/status");
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.output, "SigBlk:\t0000000000000000\n");
}

}  // namespace
