#include "probe/tlb_flush2_native.h"

#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "probe/affinity.h"
#include "probe/clock.h"
#include "probe/interrupts.h"
#include "probe/realtime.h"

namespace ipisim::probe {

namespace {

constexpr size_t kRegion = 1 << 20;  // MEMSIZE: 1 MiB
constexpr size_t kStride = 256;      // MAX_CACHELINE_SIZE: one counter per 256 bytes

enum Failure : uint64_t { kNone = 0, kPin = 1, kMmap = 2, kNotZero = 3, kFork = 4, kNotReady = 5 };

// Shared with forked tasks: one 256-byte slot per word, so nothing false-shares.
class SharedArea {
public:
    explicit SharedArea(size_t tasks) : bytes_((tasks + 3) * kStride) {
        void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error(fmt::format("mmap(shared counters): {}", std::strerror(errno)));
        base_ = static_cast<char*>(p);
    }
    ~SharedArea() { munmap(base_, bytes_); }
    SharedArea(const SharedArea&) = delete;
    SharedArea& operator=(const SharedArea&) = delete;

    std::atomic<uint64_t>& counter(size_t task) { return word(task + 3); }
    std::atomic<uint64_t>& stop() { return word(0); }
    std::atomic<uint64_t>& failure() { return word(1); }
    std::atomic<uint64_t>& ready() { return word(2); }

private:
    std::atomic<uint64_t>& word(size_t slot) {
        return *reinterpret_cast<std::atomic<uint64_t>*>(base_ + slot * kStride);
    }
    size_t bytes_;
    char* base_ = nullptr;
};

// One task: pin, announce, wait for the start byte, then the tlb_flush2 testcase until stopped.
void task_main(SharedArea& area, size_t index, int cpu, int start_fd) {
    if (!pin_to_cpu(cpu, nullptr) || !make_realtime(1, nullptr)) {
        area.failure().store(kPin);
        area.ready().fetch_add(1);
        return;
    }
    area.ready().fetch_add(1);
    pollfd pfd{start_fd, POLLIN, 0};
    while (poll(&pfd, 1, -1) < 0 && errno == EINTR) {
    }
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::atomic<uint64_t>& counter = area.counter(index);
    uint64_t iterations = 0;
    while (area.stop().load(std::memory_order_relaxed) == 0) {
        void* m = mmap(nullptr, kRegion, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            area.failure().store(kMmap);
            return;
        }
        auto* c = static_cast<volatile char*>(m);
        for (size_t off = 0; off < kRegion; off += page) {
            c[off] = 1;
            madvise(static_cast<char*>(m) + off, page, MADV_DONTNEED);
            if (c[off] != 0) area.failure().store(kNotZero);
            // A plain store of our own counter (will-it-scale increments it without a lock).
            counter.store(++iterations, std::memory_order_relaxed);
        }
        munmap(m, kRegion);
    }
}

uint64_t sum_counters(SharedArea& area, size_t tasks) {
    uint64_t s = 0;
    for (size_t i = 0; i < tasks; ++i) s += area.counter(i).load(std::memory_order_relaxed);
    return s;
}

// Sum of the tasks' CPU clocks (threads: pthread_getcpuclockid; processes: clock_getcpuclockid).
class TaskClocks {
public:
    void add(clockid_t c) { clocks_.push_back(c); }
    [[nodiscard]] bool complete(size_t tasks) const { return clocks_.size() == tasks; }
    [[nodiscard]] std::optional<uint64_t> total_ns() const {
        uint64_t sum = 0;
        for (clockid_t c : clocks_) {
            timespec ts{};
            if (clock_gettime(c, &ts) != 0) return std::nullopt;
            sum += static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
        }
        return sum;
    }

private:
    std::vector<clockid_t> clocks_;
};

void sleep_s(double s) {
    std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

// The warm-up, then the timed windows: counters, CPU clocks and interrupt counts.
void sample(const NativeTlbFlush2Options& o, SharedArea& area, const TaskClocks& clocks, NativeTlbFlush2Result& out) {
    const size_t n = o.cpus.size();
    sleep_s(o.warmup_s);
    const std::optional<InterruptCounts> before = read_interrupts();
    const uint64_t first = sum_counters(area, n);
    for (int w = 0; w < o.windows; ++w) {
        const uint64_t c0 = sum_counters(area, n);
        const std::optional<uint64_t> cpu0 = clocks.total_ns();
        const uint64_t t0 = now_ns();
        sleep_s(o.window_s);
        const uint64_t c1 = sum_counters(area, n);
        const std::optional<uint64_t> cpu1 = clocks.total_ns();
        const uint64_t t1 = now_ns();
        const auto loops = static_cast<double>(c1 - c0);
        out.window_loops_per_sec.push_back(loops * 1e9 / static_cast<double>(t1 - t0));
        if (clocks.complete(n) && cpu0 && cpu1 && *cpu1 >= *cpu0) {
            const double cpu_per_task = static_cast<double>(*cpu1 - *cpu0) / static_cast<double>(n);
            out.window_cpu_share.push_back(cpu_per_task / static_cast<double>(t1 - t0));
            // A window in which the tasks got no CPU at all says nothing about their speed.
            if (cpu_per_task > 0) out.window_loops_per_cpu_sec.push_back(loops * 1e9 / cpu_per_task);
        }
    }
    out.timed_loops = sum_counters(area, n) - first;
    const std::optional<InterruptCounts> after = read_interrupts();
    if (before && after && out.timed_loops > 0) {
        const auto loops = static_cast<double>(out.timed_loops);
        if (auto d = delta(*before, *after, "TLB")) out.tlb_per_loop = static_cast<double>(*d) / loops;
        if (auto d = delta(*before, *after, "CAL")) out.cal_per_loop = static_cast<double>(*d) / loops;
    }
}

std::string failure_text(uint64_t f) {
    switch (f) {
        case kPin:
            return "a task could not be pinned to its CPU";
        case kMmap:
            return "a task's mmap of its 1 MiB region failed";
        case kNotZero:
            return "a page read back non-zero after MADV_DONTNEED";
        case kFork:
            return std::string("fork() failed: ") + std::strerror(errno);
        case kNotReady:
            return "a task did not start within 10 s";
        default:
            return "";
    }
}

}  // namespace

const char* to_string(TaskMode m) {
    return m == TaskMode::threads ? "threads" : "processes";
}

NativeTlbFlush2Result run_native_tlb_flush2(const NativeTlbFlush2Options& o) {
    const size_t n = o.cpus.size();
    if (n == 0) throw std::invalid_argument("tlb_flush2: no tasks");
    SharedArea area(n);
    int start[2];
    if (pipe(start) != 0) throw std::runtime_error(fmt::format("pipe(): {}", std::strerror(errno)));

    std::vector<std::thread> threads;
    std::vector<pid_t> children;
    TaskClocks clocks;
    for (size_t i = 0; i < n; ++i) {
        clockid_t clock{};
        if (o.mode == TaskMode::threads) {
            threads.emplace_back([&area, i, cpu = o.cpus[i], fd = start[0]] { task_main(area, i, cpu, fd); });
            if (pthread_getcpuclockid(threads.back().native_handle(), &clock) == 0) clocks.add(clock);
            continue;
        }
        const pid_t pid = fork();
        if (pid == 0) {
            task_main(area, i, o.cpus[i], start[0]);
            _exit(0);
        }
        if (pid < 0) {
            area.failure().store(kFork);
            break;
        }
        children.push_back(pid);
        if (clock_getcpuclockid(pid, &clock) == 0) clocks.add(clock);
    }
    const size_t started = o.mode == TaskMode::threads ? threads.size() : children.size();
    const uint64_t deadline = now_ns() + 10'000'000'000ULL;
    while (area.ready().load() < started) {
        if (now_ns() > deadline) {
            area.failure().store(kNotReady);
            break;
        }
        sleep_s(0.001);
    }

    NativeTlbFlush2Result out;
    const char go = 1;
    if (started == n && area.failure().load() == kNone && write(start[1], &go, 1) == 1) {
        // The sampler runs above the tasks' priority, so a window ends on time.
        std::thread sampler([&] {
            make_realtime(2, nullptr);
            sample(o, area, clocks, out);
        });
        sampler.join();
    } else {
        area.stop().store(1);
        close(start[1]);  // tasks blocked in poll() see POLLHUP, then the stop flag
        start[1] = -1;
    }
    area.stop().store(1);
    if (start[1] >= 0) close(start[1]);
    for (std::thread& t : threads) t.join();
    for (pid_t pid : children) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    close(start[0]);
    out.loops_per_sec = summarize(out.window_loops_per_sec);
    out.cpu_share = summarize(out.window_cpu_share);
    out.loops_per_cpu_sec = summarize(out.window_loops_per_cpu_sec);
    out.failure = failure_text(area.failure().load());
    return out;
}

}  // namespace ipisim::probe
