#include "probe/futex_wake.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "probe/clock.h"
#include "probe/pinned_threads.h"

namespace ipisim::probe {

namespace {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));

void futex_wait(std::atomic<uint32_t>& word, uint32_t expect) {
    while (word.load(std::memory_order_acquire) == expect) {
        syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expect, nullptr, nullptr, 0);
    }
}

void futex_wake(std::atomic<uint32_t>& word) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

}  // namespace

std::vector<WakeByIdle> futex_wake_by_idle(int waker_cpu, int sleeper_cpu, const std::vector<uint64_t>& idle_ns,
                                           int wakes, const Effort& effort) {
    std::vector<WakeByIdle> out;
    for (uint64_t idle : idle_ns) {
        WakeByIdle w;
        w.idle_ns = idle;
        const int total = effort.warmup_repeats + wakes;
        alignas(128) std::atomic<uint32_t> word{0};
        alignas(128) std::atomic<uint32_t> blocked{0};  // the sleeper's round, about to block
        alignas(128) std::atomic<uint64_t> woke_at{0};
        run_pinned({waker_cpu, sleeper_cpu}, [&](size_t side) {
            if (side == 1) {
                for (int r = 0; r < total; ++r) {
                    blocked.store(static_cast<uint32_t>(r + 1), std::memory_order_release);
                    futex_wait(word, static_cast<uint32_t>(r));
                    const uint64_t t1 = now_ns();
                    if (r >= effort.warmup_repeats) {
                        w.wake_ns.push_back(static_cast<double>(t1 - woke_at.load(std::memory_order_acquire)));
                    }
                }
                return;
            }
            for (int r = 0; r < total; ++r) {
                while (blocked.load(std::memory_order_acquire) != static_cast<uint32_t>(r + 1)) {
                }
                // The sleeper blocks within a microsecond; its CPU idles for the rest of the wait.
                spin_until_ns(now_ns() + idle);
                woke_at.store(now_ns(), std::memory_order_release);
                word.store(static_cast<uint32_t>(r + 1), std::memory_order_release);
                futex_wake(word);
            }
        });
        out.push_back(std::move(w));
    }
    return out;
}

}  // namespace ipisim::probe
