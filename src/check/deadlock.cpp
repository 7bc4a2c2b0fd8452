#include "check/deadlock.h"

#include <fmt/format.h>

#include <algorithm>

#include "hw/coherence/cache_line.h"

namespace ipisim::check {

hw::CpuId Deadlock::waits_for(const Waits& waits, hw::CpuId cpu, uint32_t nr_cpus) const {
    const Waits::Wait* w = waits.current_wait(cpu);
    if (w == nullptr) return nr_cpus;
    if (auto it = holder_.find(w->var); it != holder_.end()) return it->second;
    if (auto it = csd_target_.find(w->var); it != csd_target_.end()) return it->second;
    return nr_cpus;
}

hw::CpuId Deadlock::blocked_by(const Waits& waits, hw::CpuId cpu, uint32_t nr_cpus,
                               const std::function<bool(hw::CpuId)>& irqs_off) const {
    const hw::CpuId target = waits_for(waits, cpu, nr_cpus);
    if (target >= nr_cpus) return nr_cpus;
    if (holder_.count(waits.current_wait(cpu)->var) != 0) return target;
    return irqs_off(target) ? target : nr_cpus;  // a CSD: its target could take the IPI
}

std::vector<std::string> Deadlock::held_by(hw::CpuId cpu) const {
    std::vector<std::string> out;
    for (const auto& [var, c] : holder_) {
        if (c == cpu) out.push_back(var->line().name());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string Deadlock::describe(const Waits& waits, hw::CpuId c, uint32_t nr_cpus, sim::Picos now,
                               const std::function<bool(hw::CpuId)>& irqs_off) const {
    std::string held;
    for (const std::string& l : held_by(c)) held += (held.empty() ? "" : ", ") + l;
    const hw::CpuId target = waits_for(waits, c, nr_cpus);
    std::string whom;
    if (target < nr_cpus) {
        const Waits::Wait* w = waits.current_wait(c);
        if (holder_.count(w->var) != 0) {
            whom = fmt::format(", held by cpu{}", target);
        } else {
            whom = fmt::format(", a CSD only cpu{}'s IPI handler can release", target);
            if (!irqs_off(target)) whom += fmt::format(" (cpu{} has IRQs on: the IPI was never sent)", target);
        }
    }
    return fmt::format("cpu{} (IRQs {}) holds {}; {}{}; frames: {}", c, irqs_off(c) ? "off" : "on",
                       held.empty() ? "no lock" : held, waits.describe_wait(c, now), whom, waits.frames(c));
}

Violation Deadlock::analyze(const Waits& waits, uint32_t nr_cpus, sim::Picos now,
                            const std::function<bool(hw::CpuId)>& irqs_off) const {
    // Find a cycle: follow each waiting CPU's edge until it repeats or leaves the graph.
    std::vector<hw::CpuId> cycle;
    for (hw::CpuId start = 0; start < nr_cpus && cycle.empty(); ++start) {
        std::vector<hw::CpuId> path;
        hw::CpuId c = start;
        while (c < nr_cpus && std::find(path.begin(), path.end(), c) == path.end()) {
            path.push_back(c);
            c = blocked_by(waits, c, nr_cpus, irqs_off);
        }
        if (c < nr_cpus) cycle.assign(std::find(path.begin(), path.end(), c), path.end());
    }
    Violation v;
    v.time = now;
    std::string others;
    for (hw::CpuId c = 0; c < nr_cpus; ++c) {
        if (waits.current_wait(c) == nullptr || std::find(cycle.begin(), cycle.end(), c) != cycle.end()) continue;
        others += fmt::format(" Also stuck: {}.", describe(waits, c, nr_cpus, now, irqs_off));
    }
    if (!cycle.empty()) {
        v.kind = ViolationKind::deadlock;
        v.cpu = cycle.front();
        std::string names;
        std::string parts;
        for (hw::CpuId c : cycle) {
            names += fmt::format("cpu{} -> ", c);
            parts += fmt::format(" {}.", describe(waits, c, nr_cpus, now, irqs_off));
        }
        v.diagnosis = fmt::format("deadlock: no event is left and the wait-for cycle {}cpu{} can never resolve:{}{}",
                                  names, cycle.front(), parts, others);
        return v;
    }
    v.kind = ViolationKind::stuck_wait;
    for (hw::CpuId c = 0; c < nr_cpus; ++c) {
        if (waits.current_wait(c) == nullptr) continue;
        v.cpu = c;
        v.diagnosis = fmt::format(
            "lost wake-up: no event is left, so nothing will ever write what these CPUs wait on (no wait-for cycle):{}",
            others);
        return v;
    }
    v.diagnosis = "the run ended with no event left and work unfinished, but no CPU is waiting";
    return v;
}

}  // namespace ipisim::check
