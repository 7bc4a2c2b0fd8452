#include "probe/membarrier.h"

#include <fmt/format.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "probe/clock.h"
#include "probe/interrupts.h"
#include "probe/pinned_threads.h"

namespace ipisim::probe {

namespace {

long sys_membarrier(int cmd, unsigned flags) {
    return syscall(SYS_membarrier, cmd, flags, 0);
}

// Registers the process for private expedited barriers; "" or why it cannot.
std::string register_private_expedited() {
    const long mask = sys_membarrier(MEMBARRIER_CMD_QUERY, 0);
    if (mask < 0) {
        return fmt::format("membarrier(MEMBARRIER_CMD_QUERY) failed: {}{}", std::strerror(errno),
                           errno == ENOSYS ? " (kernel built without CONFIG_MEMBARRIER)" : "");
    }
    if ((mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
        return "the kernel does not offer MEMBARRIER_CMD_PRIVATE_EXPEDITED (QUERY mask " + std::to_string(mask) + ")";
    }
    if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) != 0) {
        return fmt::format("membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) failed: {}", std::strerror(errno));
    }
    return "";
}

// The spinning target's loop counter, on a line of its own.
struct alignas(64) SpinCount {
    std::atomic<uint64_t> n{0};
};

// The target's loop rate over a quiet stretch (no calls): iterations per ns.
double quiet_rate(const SpinCount& spins, uint64_t ns) {
    const uint64_t s0 = spins.n.load(std::memory_order_relaxed);
    const uint64_t t0 = now_ns();
    uint64_t t1 = t0;
    while (t1 - t0 < ns) t1 = now_ns();
    const uint64_t s1 = spins.n.load(std::memory_order_relaxed);
    return static_cast<double>(s1 - s0) / static_cast<double>(t1 - t0);
}

// Times batches of calls on the calling thread; the CAL delta covers the timed batches only.
// With `spins` and the target's quiet `rate`, also the target's time lost per call.
MembarrierSide time_calls(uint64_t calls, const Effort& effort, std::string* error, const SpinCount* spins = nullptr,
                          double rate = 0) {
    MembarrierSide side;
    for (int s = 0; s < effort.warmup_repeats; ++s) {
        for (uint64_t k = 0; k < calls; ++k) sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0);
    }
    const std::optional<InterruptCounts> before = read_interrupts();
    for (int s = 0; s < effort.repeats; ++s) {
        const uint64_t s0 = spins != nullptr ? spins->n.load(std::memory_order_relaxed) : 0;
        const uint64_t t0 = now_ns();
        for (uint64_t k = 0; k < calls; ++k) {
            if (sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) != 0) {
                *error = fmt::format("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed: {}", std::strerror(errno));
                return side;
            }
        }
        const uint64_t t1 = now_ns();
        side.call_ns.push_back(static_cast<double>(t1 - t0) / static_cast<double>(calls));
        if (spins != nullptr && rate > 0) {
            // The loop ran (s1 - s0) / rate ns of the window; the rest was taken from it.
            const double ran = static_cast<double>(spins->n.load(std::memory_order_relaxed) - s0) / rate;
            const double lost = std::max(0.0, static_cast<double>(t1 - t0) - ran);
            side.target_lost_ns.push_back(lost / static_cast<double>(calls));
        }
    }
    const std::optional<InterruptCounts> after = read_interrupts();
    if (before && after) {
        if (auto d = delta(*before, *after, "CAL")) {
            side.cal_per_call = static_cast<double>(*d) / static_cast<double>(calls * effort.repeats);
        }
    }
    return side;
}

}  // namespace

MembarrierResult measure_membarrier(int caller_cpu, int target_cpu, uint64_t calls_per_sample, const Effort& effort) {
    MembarrierResult out;
    out.skipped = register_private_expedited();
    if (!out.skipped.empty()) return out;

    std::string error;
    // The target thread spins on its CPU: every call IPIs it.
    std::atomic<bool> running{false};
    std::atomic<bool> stop{false};
    SpinCount spins;
    run_pinned({caller_cpu, target_cpu}, [&](size_t side) {
        if (side == 1) {
            running.store(true, std::memory_order_release);
            while (!stop.load(std::memory_order_acquire)) {
                spins.n.store(spins.n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
            }
            return;
        }
        while (!running.load(std::memory_order_acquire)) {
        }
        const double rate = quiet_rate(spins, 20'000'000);  // 20 ms without calls
        out.spinning = time_calls(calls_per_sample, effort, &error, &spins, rate);
        stop.store(true, std::memory_order_release);
    });
    // The target thread sleeps in read() on a pipe: its CPU idles, no IPI is needed.
    int fds[2];
    if (error.empty() && pipe(fds) == 0) {
        run_pinned({caller_cpu, target_cpu}, [&](size_t side) {
            if (side == 1) {
                char c = 0;
                while (read(fds[0], &c, 1) < 0 && errno == EINTR) {
                }
                return;
            }
            // Give the target time to block (its CPU then runs the idle task).
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            out.sleeping = time_calls(calls_per_sample, effort, &error);
            const char c = 1;
            while (write(fds[1], &c, 1) < 0 && errno == EINTR) {
            }
        });
        close(fds[0]);
        close(fds[1]);
    }
    if (!error.empty()) out.skipped = error;
    return out;
}

}  // namespace ipisim::probe
