// A Chrome / Perfetto trace of one simulated run, in the JSON trace-event format (load it in
// ui.perfetto.dev or chrome://tracing). Per machine a process; per CPU a track of complete
// ("X") slices named by the kernel function the CPU's time goes to (the profile labels) with
// the activity (user, kernel, irq, spin, idle) as category; work stolen from a CPU (RAR
// microcode) on a track of its own beside it; a flow arrow ("s" -> "f") from every IPI or RAR
// message's send to its target (binding to the slice that follows delivery: the handler);
// thread-scoped instants ("i") for TLB invalidations; counters ("C") for each CPU's
// call_single_queue depth and the messages in flight in the interrupt fabric.
//
// Only [from, to) of simulated time is recorded: slices are clipped to it, flows whose send or
// delivery lies outside are left out (every flow id has both ends), counters start with their
// value at `from`. Timestamps are microseconds (the format's unit) with picosecond digits;
// displayTimeUnit is "ns".
//
//   report::Trace trace({2_ms, 2200_us});
//   { hw::ObserverScope scope(trace, /*timeline=*/true); run_the_point(); }
//   write_text_file("trace.json", trace.json().dump());
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/cpu/profile.h"
#include "hw/observer.h"
#include "sim/time.h"

namespace ipisim::report {

struct TraceWindow {
    sim::Picos from = sim::Picos::zero();
    sim::Picos to = sim::Picos::max();
};

class Trace : public hw::Observer {
public:
    explicit Trace(TraceWindow window = {});

    void machine_built(const sim::Engine& eng, const hw::MachineSpec& spec, const std::vector<hw::Cpu*>& cpus) override;
    void message_sent(const hw::FabricEvent& e) override;
    void message_delivered(const hw::FabricEvent& e) override;
    void function_changed(const hw::CpuProfile& profile, uint32_t label, hw::Activity activity,
                          sim::Picos now) override;
    void work_stolen(const hw::CpuProfile& profile, uint32_t label, sim::Picos duration, sim::Picos now) override;
    void tlb_invalidated(hw::CpuId cpu, const hw::Invalidation& inv, size_t removed) override;
    void queue_changed(hw::CpuId cpu, std::string_view queue, size_t depth, sim::Picos now) override;

    // The trace so far: slices still open end at the window's end or at the last time seen,
    // whichever is first. {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}.
    [[nodiscard]] nlohmann::ordered_json json() const;

    [[nodiscard]] const TraceWindow& window() const { return window_; }

private:
    struct Event {
        uint64_t ts = 0;  // ps
        uint64_t dur = 0;
        char ph = 'X';
        uint32_t pid = 0;
        uint32_t tid = 0;
        uint32_t label = 0;  // X: profile label
        hw::Activity activity = hw::Activity::idle;
        uint64_t id = 0;  // s / f
        std::string name;
        nlohmann::ordered_json args;
    };
    struct Slice {  // what a track is doing since `since`
        uint32_t label = 0;
        hw::Activity activity = hw::Activity::idle;
        uint64_t since = 0;
        uint64_t until = 0;  // stolen-work tracks: where the open piece ends
        bool open = false;
    };
    struct Machine {
        const sim::Engine* eng = nullptr;
        std::string name;
        uint32_t nr_cpus = 0;
        uint32_t pid = 0;
        uint32_t tid_base = 0;      // CPU c is track tid_base + c, its stolen work tid_base + nr_cpus + c
        std::vector<Slice> cpu;     // per CPU
        std::vector<Slice> stolen;  // per CPU: the stolen-work track
        std::map<uint32_t, hw::FabricEvent> in_flight;  // by fabric slot: sends inside the window
    };
    struct Counter {
        std::string key;             // the series in the counter's args
        uint64_t value_at_from = 0;  // last value set before the window
        bool seen_before = false;
    };

    [[nodiscard]] bool inside(uint64_t t) const { return t >= window_.from.count() && t < window_.to.count(); }
    void see(uint64_t t) { last_ = std::max(last_, t); }
    // Emits [s.since, end) of a track, clipped to the window; nothing when empty.
    void close(const Slice& s, uint32_t pid, uint32_t tid, uint64_t end, std::vector<Event>& out) const;
    void counter(uint32_t pid, const std::string& name, const char* key, uint64_t value, uint64_t t);
    // The machine and CPU a profile belongs to; nullptr for a profile no machine announced.
    Machine* machine_of(const hw::CpuProfile& profile, uint32_t* cpu);
    void push(Event e) { events_.push_back(std::move(e)); }

    TraceWindow window_;
    std::vector<Machine> machines_;
    std::map<const hw::CpuProfile*, std::pair<uint32_t, uint32_t>> profiles_;  // -> (machine, cpu)
    std::vector<Event> events_;
    std::map<std::pair<uint32_t, std::string>, Counter> counters_;  // by (pid, name)
    uint64_t next_flow_ = 1;
    uint64_t last_ = 0;  // latest simulated time seen
};

}  // namespace ipisim::report
