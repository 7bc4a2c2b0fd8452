#include "report/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace ipisim::report {

namespace {

// posix_spawn's file actions and attributes, released on every path.
struct SpawnSetup {
    posix_spawn_file_actions_t actions{};
    posix_spawnattr_t attr{};
    SpawnSetup(int read_end, int write_end) {
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addclose(&actions, read_end);
        posix_spawn_file_actions_adddup2(&actions, write_end, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, write_end, STDERR_FILENO);
        posix_spawn_file_actions_addclose(&actions, write_end);
        posix_spawnattr_init(&attr);
        sigset_t none;
        sigemptyset(&none);
        posix_spawnattr_setsigmask(&attr, &none);
        sigset_t defaults;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGINT);
        sigaddset(&defaults, SIGTERM);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    }
    ~SpawnSetup() {
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&actions);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

CommandResult run_shell_command(const std::string& command) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    pid_t pid = 0;
    int rc = 0;
    {
        SpawnSetup setup(fds[0], fds[1]);
        char sh[] = "/bin/sh";
        char dash_c[] = "-c";
        std::string cmd = command;
        char* argv[] = {sh, dash_c, cmd.data(), nullptr};
        rc = ::posix_spawn(&pid, "/bin/sh", &setup.actions, &setup.attr, argv, environ);
    }
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        throw std::runtime_error(fmt::format("cannot start /bin/sh -c {}: {}", command, std::strerror(rc)));
    }
    CommandResult out;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) {
            out.output.append(buf, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return out;
}

}  // namespace ipisim::report
