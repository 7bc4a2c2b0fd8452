// Per-CPU waits and kernel frames for the stuck-wait and deadlock monitors (docs/checker.md).
//
// Each CPU keeps a fixed-depth stack of the profile-label scopes open on it (its kernel frames)
// and of the waits in progress (a spin nested in an IRQ handler that interrupted another spin
// is the second entry). No allocation: depths beyond the capacity are counted, not stored.
// Apart from those, the tasks of each CPU that sleep on a line (an rwsem waiter in schedule():
// its CPU runs other work or idles meanwhile) are kept in the order they went to sleep; the
// deadlock monitor follows them when the CPU itself waits on nothing. They are not stuck-wait
// candidates: a sleep has no spin to bound.
//
// Stuck wait: a wait that lasted longer than `bound` when it ended, or that is still open at the
// end of the run and began more than `bound` before it. The default bound is derived from the
// machine: 1000 times its slowest idle-state exit latency plus 1 ms, far above any legitimate
// wait (the longest legitimate wait is an IPI to a CPU in its deepest idle state).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/violation.h"
#include "hw/coherence/sim_var.h"
#include "hw/machine.h"

namespace ipisim::check {

// 1000 x the slowest idle exit + 1 ms.
sim::Picos default_wait_bound(const hw::MachineSpec& machine);

class Waits {
public:
    static constexpr size_t kFrames = 24;
    static constexpr size_t kWaits = 4;
    struct Wait {
        const hw::SimVar* var = nullptr;
        sim::Picos began;
    };

    Waits(uint32_t nr_cpus, sim::Picos bound) : cpus_(nr_cpus), bound_(bound) {}

    void frame_push(hw::CpuId cpu, uint32_t label);
    void frame_pop(hw::CpuId cpu);
    void wait_begin(hw::CpuId cpu, const hw::SimVar& var, sim::Picos now);
    // The violation if the wait that ends outlived the bound.
    std::optional<Violation> wait_end(hw::CpuId cpu, sim::Picos now);
    // A task of `cpu` sleeps on `var` / woke with it changed.
    void sleep_begin(hw::CpuId cpu, const hw::SimVar& var, sim::Picos now);
    void sleep_end(hw::CpuId cpu, const hw::SimVar& var);

    [[nodiscard]] sim::Picos bound() const { return bound_; }
    // The innermost wait in progress on `cpu`, if any.
    [[nodiscard]] const Wait* current_wait(hw::CpuId cpu) const;
    // The longest sleep of a task of `cpu` still asleep, if any.
    [[nodiscard]] const Wait* asleep(hw::CpuId cpu) const;
    // What keeps `cpu`'s work from finishing: its innermost wait, else its tasks' oldest sleep.
    [[nodiscard]] const Wait* blocking_wait(hw::CpuId cpu) const;
    // "cpu_main > flush_tlb_mm_range > native_flush_tlb_multi > ..." (outermost first).
    [[nodiscard]] std::string frames(hw::CpuId cpu) const;
    // What `cpu` waits on, for reports: "waits on cfd_csd@3 (word 0) since 12.0 us (...)", or
    // "a task asleep on ... since ..." when only a task of it sleeps.
    [[nodiscard]] std::string describe_wait(hw::CpuId cpu, sim::Picos now) const;
    // Every wait still open at `now` that began more than the bound before it (CPU order).
    [[nodiscard]] std::vector<Violation> stuck(sim::Picos now) const;

private:
    struct PerCpu {
        std::array<uint32_t, kFrames> frames{};
        uint32_t depth = 0;
        std::array<Wait, kWaits> waits{};
        uint32_t nwaits = 0;
        std::array<Wait, kWaits> sleeps{};  // oldest first
        uint32_t nsleeps = 0;
    };
    [[nodiscard]] Violation stuck_violation(hw::CpuId cpu, const Wait& w, sim::Picos now, bool ended) const;

    std::vector<PerCpu> cpus_;
    sim::Picos bound_;
};

}  // namespace ipisim::check
