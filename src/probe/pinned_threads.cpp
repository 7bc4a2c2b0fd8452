#include "probe/pinned_threads.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "probe/affinity.h"
#include "probe/realtime.h"

namespace ipisim::probe {

void run_pinned(const std::vector<int>& cpus, const std::function<void(size_t)>& fn) {
    std::mutex m;
    std::condition_variable cv;
    size_t arrived = 0;
    std::string pin_error;
    std::exception_ptr failure;
    std::vector<std::thread> threads;
    threads.reserve(cpus.size());
    for (size_t i = 0; i < cpus.size(); ++i) {
        threads.emplace_back([&, i] {
            std::string why;
            const bool pinned = pin_to_cpu(cpus[i], &why) && make_realtime(1, &why);
            {
                std::unique_lock lock(m);
                if (!pinned && pin_error.empty()) pin_error = why;
                ++arrived;
                cv.notify_all();
                cv.wait(lock, [&] { return arrived == cpus.size(); });
                if (!pin_error.empty()) return;
            }
            try {
                fn(i);
            } catch (...) {
                std::lock_guard lock(m);
                if (!failure) failure = std::current_exception();
            }
        });
    }
    for (std::thread& t : threads) t.join();
    if (!pin_error.empty()) throw std::runtime_error(pin_error);
    if (failure) std::rethrow_exception(failure);
}

}  // namespace ipisim::probe
