// Per-CPU accounting of where time goes, for perf-like profiles: every picosecond of a CPU is
// charged to one (function label, activity) pair. Labels are kernel function names
// ("flush_tlb_func", "native_flush_tlb_multi") interned to small ids; activities say what the
// CPU was doing inside that function. A label may carry a category, given by the code that
// creates it, so that a metric asks for time by what it was spent on instead of by name:
//
//   static const uint32_t label = hw::profile_label("smp_call_rar_many", hw::LabelCategory::tlb_invalidation);
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

// What a label's time is spent on. A label has one category (none until tagged); the code that
// creates the label tags it, or, for a label whose creator does not yet, the subsystem whose
// time it is tags it by name (kernel/tlbflush/label_categories.cpp).
enum class LabelCategory : uint8_t {
    none,
    tlb_invalidation,  // flushing translations: flush_tlb_mm_range, flush_tlb_func, RAR, INVLPGB
    cross_call,        // the smp_call_function* layer: CSD queueing, waiting, running the queue
    ipi_send,          // interrupt-controller send loops (ICR / ICC_SGI1R writes, ICR-idle waits)
};
inline constexpr size_t kLabelCategories = 4;
std::string_view to_string(LabelCategory c);

// Interned label ids, process-wide and thread-safe. Ids are assigned in order of first use, so
// they are not stable across runs; results use names (profile_label_name), never ids.
uint32_t profile_label(std::string_view name);
// The same, and tags the label with `category` (none: leaves it as it is). A label tagged with
// two different categories is a programming error (std::logic_error).
uint32_t profile_label(std::string_view name, LabelCategory category);
const std::string& profile_label_name(uint32_t id);
[[nodiscard]] LabelCategory profile_label_category(uint32_t id);

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
