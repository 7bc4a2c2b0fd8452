#include "report/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hw/cpu/cpu.h"
#include "hw/machine.h"
#include "hw/tlb/tlb.h"
#include "sim/engine.h"

namespace ipisim::report {

namespace {

// Microseconds, the format's unit, keeping every picosecond.
double us(uint64_t ps) {
    return static_cast<double>(ps) / 1e6;
}

// Among events at one time: a flow's end before the slice it binds to (the next one on its
// track), slices before the flow starts they enclose.
int order_at_same_time(char ph) {
    switch (ph) {
        case 'f':
            return 0;
        case 'X':
            return 1;
        case 's':
            return 3;
        default:
            return 2;
    }
}

nlohmann::ordered_json metadata(const char* what, uint32_t pid, uint32_t tid, nlohmann::ordered_json args) {
    nlohmann::ordered_json m;
    m["name"] = what;
    m["ph"] = "M";
    m["pid"] = pid;
    m["tid"] = tid;
    m["args"] = std::move(args);
    return m;
}

std::string hex(uint64_t v) {
    return fmt::format("{:#x}", v);
}

}  // namespace

Trace::Trace(TraceWindow window) : window_(window) {}

void Trace::machine_built(const sim::Engine& eng, const hw::MachineSpec& spec, const std::vector<hw::Cpu*>& cpus) {
    Machine m;
    m.eng = &eng;
    m.name = spec.name;
    m.nr_cpus = static_cast<uint32_t>(cpus.size());
    m.pid = static_cast<uint32_t>(machines_.size()) + 1;
    m.tid_base = machines_.empty() ? 0 : machines_.back().tid_base + 2 * machines_.back().nr_cpus;
    // A CPU starts in its profile's initial state: no function, idle.
    m.cpu.assign(m.nr_cpus, Slice{0, hw::Activity::idle, eng.now().count(), 0, true});
    m.stolen.assign(m.nr_cpus, Slice{});
    const auto index = static_cast<uint32_t>(machines_.size());
    for (uint32_t c = 0; c < m.nr_cpus; ++c) {
        if (cpus[c] != nullptr) profiles_[&cpus[c]->profile()] = {index, c};
    }
    see(eng.now().count());
    machines_.push_back(std::move(m));
}

Trace::Machine* Trace::machine_of(const hw::CpuProfile& profile, uint32_t* cpu) {
    auto it = profiles_.find(&profile);
    if (it == profiles_.end()) return nullptr;
    *cpu = it->second.second;
    return &machines_[it->second.first];
}

void Trace::close(const Slice& s, uint32_t pid, uint32_t tid, uint64_t end, std::vector<Event>& out) const {
    const uint64_t from = std::max(s.since, window_.from.count());
    const uint64_t to = std::min(end, window_.to.count());
    if (!s.open || to <= from) return;
    Event e;
    e.ph = 'X';
    e.ts = from;
    e.dur = to - from;
    e.pid = pid;
    e.tid = tid;
    e.label = s.label;
    e.activity = s.activity;
    out.push_back(std::move(e));
}

void Trace::function_changed(const hw::CpuProfile& profile, uint32_t label, hw::Activity activity, sim::Picos now) {
    uint32_t cpu = 0;
    Machine* m = machine_of(profile, &cpu);
    if (m == nullptr) return;
    see(now.count());
    Slice& s = m->cpu[cpu];
    if (s.open && s.label == label && s.activity == activity) return;  // the same slice goes on
    close(s, m->pid, m->tid_base + cpu, now.count(), events_);
    s = Slice{label, activity, now.count(), 0, true};
}

void Trace::work_stolen(const hw::CpuProfile& profile, uint32_t label, sim::Picos duration, sim::Picos now) {
    uint32_t cpu = 0;
    Machine* m = machine_of(profile, &cpu);
    if (m == nullptr || duration == sim::Picos::zero()) return;
    see(now.count());
    Slice& s = m->stolen[cpu];
    const uint64_t start = std::max((now - duration).count(), s.open ? s.until : 0);
    if (s.open && s.label == label && s.until == start) {
        s.until = now.count();  // one piece of work, charged in steps
        return;
    }
    close(s, m->pid, m->tid_base + m->nr_cpus + cpu, s.until, events_);
    s = Slice{label, hw::Activity::kernel, start, now.count(), true};
}

void Trace::message_sent(const hw::FabricEvent& e) {
    if (machines_.empty()) return;
    Machine& m = machines_.back();
    see(e.now.count());
    counter(m.pid, "fabric messages in flight", "messages", e.in_flight, e.now.count());
    if (inside(e.now.count())) m.in_flight[e.slot] = e;
}

void Trace::message_delivered(const hw::FabricEvent& e) {
    if (machines_.empty()) return;
    Machine& m = machines_.back();
    see(e.now.count());
    counter(m.pid, "fabric messages in flight", "messages", e.in_flight, e.now.count());
    auto it = m.in_flight.find(e.slot);
    if (it == m.in_flight.end()) return;  // sent before the window
    const hw::FabricEvent sent = it->second;
    m.in_flight.erase(it);
    if (!inside(e.now.count())) return;
    const uint64_t id = next_flow_++;
    const char* name = e.rar ? "RAR" : "IPI";
    Event s;
    s.ph = 's';
    s.ts = sent.now.count();
    s.pid = m.pid;
    s.tid = m.tid_base + sent.sender;
    s.id = id;
    s.name = name;
    s.args = {{"vector", hex(sent.vector)}, {"target", sent.target}};
    Event f = s;
    f.ph = 'f';
    f.ts = e.now.count();
    f.tid = e.rar ? m.tid_base + m.nr_cpus + e.target : m.tid_base + e.target;
    f.args = {{"vector", hex(e.vector)}, {"sender", e.sender}};
    push(std::move(s));
    push(std::move(f));
}

void Trace::tlb_invalidated(hw::CpuId cpu, const hw::Invalidation& inv, size_t removed) {
    if (machines_.empty()) return;
    const Machine& m = machines_.back();
    if (cpu >= m.nr_cpus) return;
    const uint64_t now = m.eng->now().count();
    see(now);
    if (!inside(now)) return;
    Event e;
    e.ph = 'i';
    e.ts = now;
    e.pid = m.pid;
    e.tid = m.tid_base + cpu;
    e.name = "tlb_flush";
    e.args["pcid"] = inv.any_pcid ? nlohmann::ordered_json("all") : nlohmann::ordered_json(inv.pcid);
    e.args["range"] = inv.all_addresses ? "all" : fmt::format("{:#x}-{:#x}", inv.start, inv.end);
    e.args["globals"] = inv.include_global;
    e.args["removed"] = removed;
    push(std::move(e));
}

void Trace::queue_changed(hw::CpuId cpu, std::string_view queue, size_t depth, sim::Picos now) {
    if (machines_.empty()) return;
    see(now.count());
    counter(machines_.back().pid, fmt::format("{}[{}]", queue, cpu), "depth", depth, now.count());
}

void Trace::counter(uint32_t pid, const std::string& name, const char* key, uint64_t value, uint64_t t) {
    if (t < window_.from.count()) {
        Counter& c = counters_[{pid, name}];
        c.key = key;
        c.value_at_from = value;
        c.seen_before = true;
        return;
    }
    if (!inside(t)) return;
    Event e;
    e.ph = 'C';
    e.ts = t;
    e.pid = pid;
    e.name = name;
    e.args[key] = value;
    push(std::move(e));
}

nlohmann::ordered_json Trace::json() const {
    std::vector<Event> events = events_;
    const uint64_t end = std::min(last_, window_.to.count());
    for (const Machine& m : machines_) {
        for (uint32_t c = 0; c < m.nr_cpus; ++c) {
            close(m.cpu[c], m.pid, m.tid_base + c, end, events);
            close(m.stolen[c], m.pid, m.tid_base + m.nr_cpus + c, m.stolen[c].until, events);
        }
    }
    for (const auto& [key, c] : counters_) {
        if (!c.seen_before || !inside(window_.from.count()) || window_.from.count() > last_) continue;
        Event e;
        e.ph = 'C';
        e.ts = window_.from.count();
        e.pid = key.first;
        e.name = key.second;
        e.args[c.key] = c.value_at_from;
        events.push_back(std::move(e));
    }
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        if (a.ts != b.ts) return a.ts < b.ts;
        return order_at_same_time(a.ph) < order_at_same_time(b.ph);
    });

    std::set<std::pair<uint32_t, uint32_t>> used;  // (pid, tid) of tracks with events
    for (const Event& e : events) used.insert({e.pid, e.tid});

    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Machine& m : machines_) {
        list.push_back(metadata("process_name", m.pid, 0, {{"name", fmt::format("{} ({} CPUs)", m.name, m.nr_cpus)}}));
        for (uint32_t c = 0; c < m.nr_cpus; ++c) {
            list.push_back(metadata("thread_name", m.pid, m.tid_base + c, {{"name", fmt::format("cpu{}", c)}}));
            list.push_back(metadata("thread_sort_index", m.pid, m.tid_base + c, {{"sort_index", 2 * c}}));
            const uint32_t tid = m.tid_base + m.nr_cpus + c;
            if (used.count({m.pid, tid}) == 0) continue;
            list.push_back(metadata("thread_name", m.pid, tid, {{"name", fmt::format("cpu{} microcode", c)}}));
            list.push_back(metadata("thread_sort_index", m.pid, tid, {{"sort_index", 2 * c + 1}}));
        }
    }
    for (const Event& e : events) {
        nlohmann::ordered_json j;
        if (e.ph == 'X') {
            j["name"] = hw::profile_label_name(e.label);
            j["cat"] = hw::to_string(e.activity);
        } else {
            j["name"] = e.name;
            j["cat"] = e.ph == 's' || e.ph == 'f' ? (e.name == "RAR" ? "rar" : "ipi") : e.ph == 'i' ? "tlb" : "counter";
        }
        j["ph"] = std::string(1, e.ph);
        j["ts"] = us(e.ts);
        if (e.ph == 'X') j["dur"] = us(e.dur);
        j["pid"] = e.pid;
        if (e.ph != 'C') j["tid"] = e.tid;
        if (e.ph == 's' || e.ph == 'f') j["id"] = e.id;
        if (e.ph == 'i') j["s"] = "t";
        if (!e.args.is_null()) j["args"] = e.args;
        list.push_back(std::move(j));
    }
    nlohmann::ordered_json out;
    out["traceEvents"] = std::move(list);
    out["displayTimeUnit"] = "ns";
    out["otherData"] = {{"generator", "ipisim"},
                        {"window_from_us", us(window_.from.count())},
                        {"window_to_us", window_.to == sim::Picos::max() ? us(end) : us(window_.to.count())}};
    return out;
}

}  // namespace ipisim::report
