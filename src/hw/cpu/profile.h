// Per-CPU accounting of where time goes, for perf-like profiles: every picosecond of a CPU is
// charged to one (function label, activity) pair. Labels are kernel function names
// ("flush_tlb_func", "native_flush_tlb_multi") interned to small ids; activities say what the
// CPU was doing inside that function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace ipisim::hw {

enum class Activity : uint8_t { idle, user, kernel, irq, spin };
inline constexpr size_t kActivities = 5;
std::string_view to_string(Activity a);

// Interned label ids, process-wide and thread-safe. Ids are assigned in order of first use, so
// they are not stable across runs; results use names (profile_label_name), never ids.
uint32_t profile_label(std::string_view name);
const std::string& profile_label_name(uint32_t id);

class CpuProfile {
public:
    CpuProfile();
    // Charges the time since the last change to the current (label, activity), then switches.
    void change(uint32_t label, Activity activity, sim::Picos now);
    void settle(sim::Picos now);
    // Moves up to `t` of the time already charged to the current (label, activity) to another
    // entry: work that ran on the CPU without it being the current function (RAR microcode).
    void transfer(sim::Picos t, uint32_t label, Activity activity, sim::Picos now);
    [[nodiscard]] uint32_t label() const { return label_; }
    [[nodiscard]] Activity activity() const { return activity_; }

    [[nodiscard]] sim::Picos time(uint32_t label, Activity a) const;
    [[nodiscard]] sim::Picos time_in(Activity a) const;
    [[nodiscard]] sim::Picos time_in_label(uint32_t label) const;
    [[nodiscard]] sim::Picos total() const;
    [[nodiscard]] uint32_t nr_labels() const { return static_cast<uint32_t>(table_.size() / kActivities); }
    // Starts a fresh measurement window at `now` (e.g. after warm-up).
    void reset(sim::Picos now);

private:
    std::vector<uint64_t> table_;  // [label * kActivities + activity]
    uint32_t label_ = 0;
    Activity activity_ = Activity::idle;
    uint64_t since_ = 0;
};

}  // namespace ipisim::hw
