#include "check/deadlock.h"

#include <fmt/format.h>

#include <algorithm>

#include "hw/coherence/cache_line.h"

namespace ipisim::check {

void Deadlock::rwsem_acquired(hw::CpuId cpu, const hw::SimVar& count, bool write) {
    RwOwners& o = rwsem_[&count];
    if (write) {
        o.writer = true;
        o.writer_cpu = cpu;
    } else {
        o.readers.push_back(cpu);
    }
}

void Deadlock::rwsem_released(hw::CpuId cpu, const hw::SimVar& count, bool write) {
    auto it = rwsem_.find(&count);
    if (it == rwsem_.end()) return;  // acquired before the monitors were installed
    RwOwners& o = it->second;
    if (write) {
        o.writer = false;
    } else if (auto r = std::find(o.readers.begin(), o.readers.end(), cpu); r != o.readers.end()) {
        o.readers.erase(r);
    }
    if (!o.writer && o.readers.empty()) rwsem_.erase(it);
}

std::string Deadlock::rwsem_owners(const hw::SimVar* count) const {
    auto it = rwsem_.find(count);
    if (it == rwsem_.end()) return {};
    const RwOwners& o = it->second;
    if (o.writer) return fmt::format("held for write by cpu{}", o.writer_cpu);
    std::string readers;
    for (hw::CpuId r : o.readers) readers += fmt::format("{}cpu{}", readers.empty() ? "" : ", ", r);
    return "held for read by " + readers;
}

const hw::SimVar* Deadlock::lock_word(const hw::SimVar* var) const {
    if (const hw::SimVar* const* word = queued_on_.find(var)) return *word;
    return var;
}

hw::CpuId Deadlock::waits_for(const Waits& waits, hw::CpuId cpu, uint32_t nr_cpus) const {
    const Waits::Wait* w = waits.blocking_wait(cpu);
    if (w == nullptr) return nr_cpus;
    const hw::SimVar* word = lock_word(w->var);
    if (const hw::CpuId* holder = holder_.find(word)) return *holder;
    if (auto it = rwsem_.find(word); it != rwsem_.end()) {
        const RwOwners& o = it->second;
        if (o.writer) return o.writer_cpu;
        // A waiting writer waits for every reader: the edge goes to one that is stuck itself.
        hw::CpuId any = nr_cpus;
        for (hw::CpuId r : o.readers) {
            if (r == cpu) continue;
            if (waits.blocking_wait(r) != nullptr) return r;
            if (any == nr_cpus) any = r;
        }
        return any;
    }
    if (w->var != nullptr) {
        const size_t i = var_index(*w->var);
        if (i < csd_target_.size() && csd_target_[i] != hw::kNoCpu) return csd_target_[i];
    }
    return nr_cpus;
}

hw::CpuId Deadlock::blocked_by(const Waits& waits, hw::CpuId cpu, uint32_t nr_cpus,
                               const std::function<bool(hw::CpuId)>& irqs_off) const {
    const hw::CpuId target = waits_for(waits, cpu, nr_cpus);
    if (target >= nr_cpus) return nr_cpus;
    const hw::SimVar* var = waits.blocking_wait(cpu)->var;
    if (holder_.contains(lock_word(var)) || rwsem_.count(lock_word(var)) != 0) return target;
    return irqs_off(target) ? target : nr_cpus;  // a CSD: its target could take the IPI
}

std::vector<std::string> Deadlock::held_by(hw::CpuId cpu) const {
    std::vector<std::string> out;
    holder_.for_each([&](const hw::SimVar* var, hw::CpuId c) {
        if (c == cpu) out.push_back(var->line().name());
    });
    for (const auto& [var, o] : rwsem_) {
        if (o.writer && o.writer_cpu == cpu) out.push_back(var->line().name() + " (write)");
        if (std::find(o.readers.begin(), o.readers.end(), cpu) != o.readers.end()) {
            out.push_back(var->line().name() + " (read)");
        }
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
        const Waits::Wait* w = waits.blocking_wait(c);
        if (const hw::SimVar* word = lock_word(w->var); word != w->var && holder_.contains(word)) {
            whom = fmt::format(", queued for {}, held by cpu{}", word->line().name(), target);
        } else if (holder_.contains(w->var)) {
            whom = fmt::format(", held by cpu{}", target);
        } else if (const std::string owners = rwsem_owners(lock_word(w->var)); !owners.empty()) {
            whom = ", " + owners;
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
    std::string others;
    for (hw::CpuId c = 0; c < nr_cpus; ++c) {
        if (waits.blocking_wait(c) == nullptr || std::find(cycle.begin(), cycle.end(), c) != cycle.end()) continue;
        others += fmt::format(" Also stuck: {}.", describe(waits, c, nr_cpus, now, irqs_off));
    }
    if (!cycle.empty()) {
        std::string names;
        std::string parts;
        for (hw::CpuId c : cycle) {
            names += fmt::format("cpu{} -> ", c);
            parts += fmt::format(" {}.", describe(waits, c, nr_cpus, now, irqs_off));
        }
        return Violation{
            .kind = ViolationKind::deadlock,
            .cpu = cycle.front(),
            .time = now,
            .diagnosis = fmt::format("deadlock: no event is left and the wait-for cycle {}cpu{} can never resolve:{}{}",
                                     names, cycle.front(), parts, others),
        };
    }
    for (hw::CpuId c = 0; c < nr_cpus; ++c) {
        if (waits.blocking_wait(c) == nullptr) continue;
        return Violation{
            .kind = ViolationKind::stuck_wait,
            .cpu = c,
            .time = now,
            .diagnosis = fmt::format("lost wake-up: no event is left, so nothing will ever write what these CPUs "
                                     "wait on (no wait-for cycle):{}",
                                     others),
        };
    }
    return Violation{
        .kind = ViolationKind::stuck_wait,
        .time = now,
        .diagnosis = "the run ended with no event left and work unfinished, but no CPU is waiting",
    };
}

}  // namespace ipisim::check
