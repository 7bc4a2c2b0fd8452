// Latency histograms of named kernel operations in one run (flush_tlb_mm_range, csd_lock_wait,
// wait_for_action_done, and the interrupt fabric's ipi_delivery / rar_delivery), reported like
// bpftrace's hist() summaries: count, p50, p90, p99 and max in nanoseconds.
//
// What each one measures (the hooks are one line at each site):
//   flush_tlb_mm_range    the initiator's whole call (kernel/mm/tlb.cpp)
//   csd_lock_wait         a wait that found the CSD locked, until its callback released it
//                         (kernel/smp/smp.cpp); calls that found it free are not counted
//   wait_for_action_done  an RAR initiator's wait for one target's action byte (kernel/rar)
//   ipi_delivery          an IPI from entering the interrupt fabric to its delivery at the
//                         target's controller (hw/intc/delivery_fabric.cpp)
//   rar_delivery          the same for RAR messages
// Quantiles are the upper edges of sim::Histogram buckets (within ~6%); max is exact.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "sim/stats.h"

namespace ipisim::report {

class LatencyHistograms {
public:
    void record(std::string_view op, sim::Picos duration);
    void reset();
    [[nodiscard]] const sim::Histogram* find(std::string_view op) const;

    // {"op": {"count": n, "p50_ns": .., "p90_ns": .., "p99_ns": .., "max_ns": ..}, ...} by name;
    // operations that never happened are left out.
    [[nodiscard]] nlohmann::ordered_json json() const;

private:
    std::map<std::string, sim::Histogram, std::less<>> histograms_;
};

}  // namespace ipisim::report
