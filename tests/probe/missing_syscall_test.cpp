// A kernel without membarrier (ENOSYS) or a process not allowed to use it (EPERM): the probe
// says so and measures everything else. The child process runs under a seccomp filter that
// makes membarrier(2) fail with the chosen errno.
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "probe/affinity.h"
#include "probe/membarrier.h"
#include "probe/probe.h"

namespace ipisim::probe {
namespace {

// Every later membarrier(2) of this process fails with `err`; false if seccomp is unavailable.
bool fail_membarrier_with(int err) {
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_membarrier, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<unsigned>(err) & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog prog{static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

// Runs `check` in a child under the filter; its exit status: 0 pass, 1 fail, 77 no seccomp.
template <class F>
int in_child_without_membarrier(int err, F check) {
    const pid_t pid = fork();
    if (pid == 0) {
        if (!fail_membarrier_with(err)) _exit(77);
        _exit(check() ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

TEST(ProbeMissingSyscall, membarrier_without_kernel_support_is_skipped_naming_enosys) {
    const std::vector<int> cpus = allowed_cpus();
    const int a = cpus.front();
    const int b = cpus.back();
    const int rc = in_child_without_membarrier(ENOSYS, [&] {
        const MembarrierResult m = measure_membarrier(a, b, 10, Effort{3, 1, 0.01, 2});
        return m.spinning.call_ns.empty() && m.skipped.find(std::strerror(ENOSYS)) != std::string::npos &&
               m.skipped.find("CONFIG_MEMBARRIER") != std::string::npos;
    });
    if (rc == 77) GTEST_SKIP() << "no seccomp here";
    EXPECT_EQ(rc, 0);
}

TEST(ProbeMissingSyscall, a_probe_without_membarrier_lists_it_as_skipped_and_measures_the_rest) {
    const int rc = in_child_without_membarrier(EPERM, [] {
        ProbeOptions o;
        o.quick = true;
        o.realtime = false;
        o.command = "test";
        o.effort = Effort{3, 1, 0.01, 2};
        const ProbeResults r = run_probe(o);
        bool listed = r.target_cpu.has_value() ? false : true;  // one CPU: skipped for that reason
        for (const Skipped& s : r.skipped) {
            if (s.what == "membarrier IPI round trip" && s.why.find(std::strerror(EPERM)) != std::string::npos) {
                listed = true;
            }
        }
        return listed && !r.membarrier_spinning && r.syscall_ns.n > 0 && r.anon_fault_ns.n > 0;
    });
    if (rc == 77) GTEST_SKIP() << "no seccomp here";
    EXPECT_EQ(rc, 0);
}

}  // namespace
}  // namespace ipisim::probe
