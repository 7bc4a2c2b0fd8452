#include "check/waits.h"

#include <fmt/format.h>

#include <algorithm>

#include "hw/coherence/cache_line.h"
#include "hw/cpu/profile.h"

namespace ipisim::check {

// A bound on waiting, so the worst case: exit_latency, the declared bound, never below the wake
// latency a wait actually pays (the machine reader rejects wake_latency > exit_latency).
sim::Picos default_wait_bound(const hw::MachineSpec& machine) {
    sim::Picos slowest;
    for (const hw::IdleState& s : machine.idle) slowest = std::max(slowest, s.exit_latency);
    return slowest * 1000 + sim::Picos(1'000'000'000);
}

void Waits::frame_push(hw::CpuId cpu, uint32_t label) {
    PerCpu& c = cpus_[cpu];
    if (c.depth < kFrames) c.frames[c.depth] = label;
    ++c.depth;
}

void Waits::frame_pop(hw::CpuId cpu) {
    PerCpu& c = cpus_[cpu];
    if (c.depth > 0) --c.depth;
}

void Waits::wait_begin(hw::CpuId cpu, const hw::SimVar& var, sim::Picos now) {
    PerCpu& c = cpus_[cpu];
    if (c.nwaits < kWaits) c.waits[c.nwaits] = Wait{&var, now};
    ++c.nwaits;
}

std::optional<Violation> Waits::wait_end(hw::CpuId cpu, sim::Picos now) {
    PerCpu& c = cpus_[cpu];
    if (c.nwaits == 0) return std::nullopt;
    --c.nwaits;
    if (c.nwaits >= kWaits) return std::nullopt;
    const Wait& w = c.waits[c.nwaits];
    if (now - w.began <= bound_) return std::nullopt;
    return stuck_violation(cpu, w, now, true);
}

void Waits::sleep_begin(hw::CpuId cpu, const hw::SimVar& var, sim::Picos now) {
    PerCpu& c = cpus_[cpu];
    if (c.nsleeps < kWaits) c.sleeps[c.nsleeps] = Wait{&var, now};
    ++c.nsleeps;
}

void Waits::sleep_end(hw::CpuId cpu, const hw::SimVar& var) {
    PerCpu& c = cpus_[cpu];
    if (c.nsleeps == 0) return;  // began before the monitors were installed
    const uint32_t stored = std::min<uint32_t>(c.nsleeps, kWaits);
    for (uint32_t i = 0; i < stored; ++i) {
        if (c.sleeps[i].var != &var) continue;
        for (uint32_t j = i + 1; j < stored; ++j) c.sleeps[j - 1] = c.sleeps[j];
        break;
    }
    --c.nsleeps;
}

const Waits::Wait* Waits::asleep(hw::CpuId cpu) const {
    const PerCpu& c = cpus_[cpu];
    if (c.nsleeps == 0 || c.nsleeps > kWaits) return nullptr;
    return &c.sleeps[0];
}

const Waits::Wait* Waits::blocking_wait(hw::CpuId cpu) const {
    const Wait* w = current_wait(cpu);
    return w != nullptr ? w : asleep(cpu);
}

const Waits::Wait* Waits::current_wait(hw::CpuId cpu) const {
    const PerCpu& c = cpus_[cpu];
    if (c.nwaits == 0 || c.nwaits > kWaits) return nullptr;
    return &c.waits[c.nwaits - 1];
}

std::string Waits::frames(hw::CpuId cpu) const {
    const PerCpu& c = cpus_[cpu];
    std::string s;
    for (uint32_t i = 0; i < std::min<uint32_t>(c.depth, kFrames); ++i) {
        s += (s.empty() ? "" : " > ") + hw::profile_label_name(c.frames[i]);
    }
    if (c.depth > kFrames) s += fmt::format(" > ({} more)", c.depth - kFrames);
    return s.empty() ? "(no kernel frame)" : s;
}

std::string Waits::describe_wait(hw::CpuId cpu, sim::Picos now) const {
    const Wait* w = current_wait(cpu);
    if (w == nullptr && (w = asleep(cpu)) != nullptr) {
        return fmt::format("a task of it asleep on {} (word {}) since {} ({} ago)", w->var->line().name(),
                           w->var->offset() / 8, sim::to_string(w->began), sim::to_string(now - w->began));
    }
    if (w == nullptr) return "not waiting";
    return fmt::format("waits on {} (word {}) since {} ({} ago)", w->var->line().name(), w->var->offset() / 8,
                       sim::to_string(w->began), sim::to_string(now - w->began));
}

Violation Waits::stuck_violation(hw::CpuId cpu, const Wait& w, sim::Picos now, bool ended) const {
    return Violation{
        .kind = ViolationKind::stuck_wait,
        .cpu = cpu,
        .time = now,
        .diagnosis = fmt::format(
            "cpu{} {} on {} for {} (from {}), longer than the bound {} (1000x the machine's slowest idle exit + 1 ms): "
            "a lost wake-up or a starved waiter. Its kernel frames: {}.",
            cpu, ended ? "waited" : "has been waiting", w.var->line().name(), sim::to_string(now - w.began),
            sim::to_string(w.began), sim::to_string(bound_), frames(cpu)),
    };
}

std::vector<Violation> Waits::stuck(sim::Picos now) const {
    std::vector<Violation> out;
    for (hw::CpuId c = 0; c < cpus_.size(); ++c) {
        const PerCpu& pc = cpus_[c];
        for (uint32_t i = 0; i < std::min<uint32_t>(pc.nwaits, kWaits); ++i) {
            if (now - pc.waits[i].began > bound_) {
                out.push_back(stuck_violation(c, pc.waits[i], now, false));
                break;
            }
        }
    }
    return out;
}

}  // namespace ipisim::check
