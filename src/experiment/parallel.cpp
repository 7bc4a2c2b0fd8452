#include "experiment/parallel.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace ipisim::experiment {

unsigned default_jobs() {
    // The affinity mask, where the process is pinned to fewer CPUs than the machine has
    // (taskset, cgroup cpusets), else every CPU the library sees.
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return static_cast<unsigned>(n);
    }
    return std::max(1U, std::thread::hardware_concurrency());
}

void for_each_parallel(unsigned jobs, size_t n, const std::function<void(size_t)>& fn) {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex lock;
    size_t failed_index = n;
    std::exception_ptr failure;

    auto worker = [&] {
        while (!failed.load(std::memory_order_relaxed)) {
            const size_t i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= n) return;
            try {
                fn(i);
            } catch (...) {
                std::lock_guard<std::mutex> guard(lock);
                if (i < failed_index) {
                    failed_index = i;
                    failure = std::current_exception();
                }
                failed.store(true, std::memory_order_relaxed);
            }
        }
    };

    const size_t threads = std::min<size_t>(std::max(1U, jobs), n);
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) {
        try {
            pool.emplace_back(worker);
        } catch (const std::system_error&) {
            break;  // no more threads: the ones running (and this one) do every job
        }
    }
    worker();
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace ipisim::experiment
