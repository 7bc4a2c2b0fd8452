#include "experiment/interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace ipisim::experiment {

namespace {

struct Folders {
    std::mutex lock;
    std::vector<Interruptible*> open;
};
Folders& folders() {
    static Folders f;
    return f;
}

sigset_t interrupt_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

[[noreturn]] void on_interrupt(int sig) {
    std::string kept;
    {
        std::lock_guard<std::mutex> guard(folders().lock);
        for (Interruptible* f : folders().open) {
            const std::string s = f->close_for_interrupt();
            if (!s.empty()) kept += (kept.empty() ? "" : "; ") + s;
        }
    }
    const char* name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    const std::string line =
        kept.empty() ? fmt::format("ipisim: interrupted by {}\n", name)
                     : fmt::format("ipisim: interrupted by {}: {}; run it again with --resume to finish\n", name, kept);
    std::fflush(stdout);
    // On a terminal, over the progress line being redrawn there (cli/console.h).
    const std::string text = (::isatty(STDERR_FILENO) != 0 ? "\r\033[K" : "") + line;
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
    ::_exit(128 + sig);
}

}  // namespace

void catch_interrupts() {
    static std::once_flag once;
    std::call_once(once, [] {
        const sigset_t set = interrupt_signals();
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
        std::thread([set] {
            int sig = 0;
            while (sigwait(&set, &sig) != 0) {
            }
            on_interrupt(sig);
        }).detach();
    });
}

InterruptScope::InterruptScope(Interruptible& folder) : folder_(&folder) {
    std::lock_guard<std::mutex> guard(folders().lock);
    folders().open.push_back(folder_);
}

InterruptScope::~InterruptScope() {
    std::lock_guard<std::mutex> guard(folders().lock);
    auto& open = folders().open;
    open.erase(std::remove(open.begin(), open.end(), folder_), open.end());
}

}  // namespace ipisim::experiment
