#include "probe/realtime.h"

#include <fmt/format.h>
#include <sched.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

namespace ipisim::probe {

namespace {
std::atomic<bool> g_realtime{false};
}  // namespace

void set_realtime(bool on) {
    g_realtime.store(on);
}

bool realtime() {
    return g_realtime.load();
}

bool make_realtime(int priority, std::string* why) {
    if (!realtime()) return true;
    sched_param p{};
    p.sched_priority = priority;
    if (sched_setscheduler(0, SCHED_FIFO, &p) == 0) return true;
    if (why != nullptr) *why = fmt::format("sched_setscheduler(SCHED_FIFO, {}): {}", priority, std::strerror(errno));
    return false;
}

bool realtime_permitted(std::string* why) {
    bool ok = false;
    std::thread t([&] {
        sched_param p{};
        p.sched_priority = 1;
        ok = sched_setscheduler(0, SCHED_FIFO, &p) == 0;
        if (!ok && why != nullptr) *why = fmt::format("sched_setscheduler(SCHED_FIFO): {}", std::strerror(errno));
    });
    t.join();
    return ok;
}

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    if (!(f >> a >> b >> c)) return "";
    return a + " " + b + " " + c;
}

}  // namespace ipisim::probe
