// Real-time priority for measuring threads. On a machine shared with other work, a pinned
// thread at normal priority runs only its share of its CPU: a spinning membarrier target is
// then mostly not running (no IPI is sent), and every latency includes waiting behind other
// tasks. SCHED_FIFO threads run as soon as they are runnable; the kernel still leaves other
// tasks 5% of each CPU (sched_rt_runtime_us / the fair server), and the probe's runs are short.
#pragma once

#include <string>

namespace ipisim::probe {

// Process-wide choice, read by run_pinned() and the native benchmark's tasks.
void set_realtime(bool on);
[[nodiscard]] bool realtime();

// SCHED_FIFO at `priority` for the calling thread (when realtime() is on); false and *why on
// failure (EPERM without CAP_SYS_NICE or RLIMIT_RTPRIO). With realtime() off: true, unchanged.
bool make_realtime(int priority, std::string* why);

// Whether this process may use SCHED_FIFO at all (tried on a short-lived thread); *why if not.
bool realtime_permitted(std::string* why);

// "12.02 14.83 11.13" from /proc/loadavg ("" if unreadable): how busy the machine was.
std::string load_average();

}  // namespace ipisim::probe
