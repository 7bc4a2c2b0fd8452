#include "probe/context_switch.h"

#include <fmt/format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "probe/clock.h"
#include "probe/pinned_threads.h"

namespace ipisim::probe {

namespace {

void write_byte(int fd) {
    const char c = 1;
    while (write(fd, &c, 1) != 1) {
        if (errno != EINTR) throw std::runtime_error(fmt::format("pipe write: {}", std::strerror(errno)));
    }
}

void read_byte(int fd) {
    char c = 0;
    while (read(fd, &c, 1) != 1) {
        if (errno != EINTR) throw std::runtime_error(fmt::format("pipe read: {}", std::strerror(errno)));
    }
}

struct Pipe {
    int fd[2] = {-1, -1};
    Pipe() {
        if (pipe(fd) != 0) throw std::runtime_error(fmt::format("pipe(): {}", std::strerror(errno)));
    }
    ~Pipe() {
        close(fd[0]);
        close(fd[1]);
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
};

}  // namespace

std::vector<double> pipe_ping_pong_ns(int cpu_a, int cpu_b, uint64_t round_trips, const Effort& effort) {
    const int samples = effort.warmup_repeats + effort.repeats;
    Pipe ping;
    Pipe pong;
    std::vector<double> out;
    run_pinned({cpu_a, cpu_b}, [&](size_t side) {
        const uint64_t total = round_trips * static_cast<uint64_t>(samples);
        if (side == 1) {
            for (uint64_t i = 0; i < total; ++i) {
                read_byte(ping.fd[0]);
                write_byte(pong.fd[1]);
            }
            return;
        }
        for (int s = 0; s < samples; ++s) {
            const uint64_t t0 = now_ns();
            for (uint64_t k = 0; k < round_trips; ++k) {
                write_byte(ping.fd[1]);
                read_byte(pong.fd[0]);
            }
            const uint64_t t1 = now_ns();
            if (s >= effort.warmup_repeats) {
                out.push_back(static_cast<double>(t1 - t0) / (2.0 * static_cast<double>(round_trips)));
            }
        }
    });
    return out;
}

std::vector<double> null_syscall_ns(int cpu, uint64_t calls, const Effort& effort) {
    std::vector<double> out;
    run_pinned({cpu}, [&](size_t) {
        for (int s = 0; s < effort.warmup_repeats + effort.repeats; ++s) {
            const uint64_t t0 = now_ns();
            for (uint64_t k = 0; k < calls; ++k) syscall(SYS_getppid);
            const uint64_t t1 = now_ns();
            if (s >= effort.warmup_repeats) out.push_back(static_cast<double>(t1 - t0) / static_cast<double>(calls));
        }
    });
    return out;
}

std::vector<double> clock_read_ns(int cpu, uint64_t reads, const Effort& effort) {
    std::vector<double> out;
    run_pinned({cpu}, [&](size_t) {
        for (int s = 0; s < effort.warmup_repeats + effort.repeats; ++s) {
            const uint64_t t0 = now_ns();
            // clock_gettime is an external call: the compiler keeps every read.
            for (uint64_t k = 0; k < reads; ++k) (void)now_ns();
            const uint64_t t1 = now_ns();
            if (s >= effort.warmup_repeats) out.push_back(static_cast<double>(t1 - t0) / static_cast<double>(reads));
        }
    });
    return out;
}

}  // namespace ipisim::probe
