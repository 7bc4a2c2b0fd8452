#include "probe/affinity.h"

#include <fmt/format.h>
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ipisim::probe {

std::vector<int> allowed_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return out;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &set)) out.push_back(c);
    }
    return out;
}

bool pin_to_cpu(int cpu, std::string* why) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) == 0) return true;
    if (why != nullptr) *why = fmt::format("sched_setaffinity(CPU {}): {}", cpu, std::strerror(errno));
    return false;
}

void pin_or_throw(int cpu) {
    std::string why;
    if (!pin_to_cpu(cpu, &why)) throw std::runtime_error(why);
}

}  // namespace ipisim::probe
