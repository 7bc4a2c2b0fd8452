#include "hw/cpu/profile.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "hw/observer.h"

namespace ipisim::hw {

std::string_view to_string(Activity a) {
    switch (a) {
        case Activity::idle:
            return "idle";
        case Activity::user:
            return "user";
        case Activity::kernel:
            return "kernel";
        case Activity::irq:
            return "irq";
        case Activity::spin:
            return "spin";
    }
    return "?";
}

std::string_view to_string(LabelCategory c) {
    switch (c) {
        case LabelCategory::none:
            return "none";
        case LabelCategory::tlb_invalidation:
            return "tlb_invalidation";
        case LabelCategory::cross_call:
            return "cross_call";
        case LabelCategory::ipi_send:
            return "ipi_send";
    }
    return "?";
}

namespace {
// Process-wide, so ids cached in function-local statics stay valid on every thread (simulations
// may run on several). Names live in a deque: references stay valid as it grows.
struct Labels {
    std::mutex lock;
    std::map<std::string, uint32_t, std::less<>> ids;
    std::deque<std::string> names;
    std::deque<LabelCategory> categories;  // by id
    Labels() {
        ids.emplace("(none)", 0);
        names.emplace_back("(none)");
        categories.push_back(LabelCategory::none);
    }
    // Caller holds `lock`.
    uint32_t intern(std::string_view name) {
        auto it = ids.find(name);
        if (it != ids.end()) return it->second;
        const auto id = static_cast<uint32_t>(names.size());
        ids.emplace(std::string(name), id);
        names.emplace_back(name);
        categories.push_back(LabelCategory::none);
        return id;
    }
};
Labels& labels() {
    static Labels l;
    return l;
}
}  // namespace

uint32_t profile_label(std::string_view name) {
    Labels& l = labels();
    std::lock_guard<std::mutex> guard(l.lock);
    return l.intern(name);
}

uint32_t profile_label(std::string_view name, LabelCategory category) {
    Labels& l = labels();
    std::lock_guard<std::mutex> guard(l.lock);
    const uint32_t id = l.intern(name);
    if (category == LabelCategory::none) return id;
    LabelCategory& c = l.categories[id];
    if (c != LabelCategory::none && c != category) {
        throw std::logic_error(
            fmt::format("profile label \"{}\" tagged {} and {}", name, to_string(c), to_string(category)));
    }
    c = category;
    return id;
}

LabelCategory profile_label_category(uint32_t id) {
    Labels& l = labels();
    std::lock_guard<std::mutex> guard(l.lock);
    return l.categories.at(id);
}

const std::string& profile_label_name(uint32_t id) {
    Labels& l = labels();
    std::lock_guard<std::mutex> guard(l.lock);
    return l.names.at(id);
}

CpuProfile::CpuProfile() : table_(kActivities * 8, 0) {}

void CpuProfile::settle(sim::Picos now) {
    const size_t idx = static_cast<size_t>(label_) * kActivities + static_cast<size_t>(activity_);
    if (idx >= table_.size()) table_.resize((static_cast<size_t>(label_) + 8) * kActivities, 0);
    table_[idx] += now.count() - since_;
    since_ = now.count();
}

void CpuProfile::transfer(sim::Picos t, uint32_t label, Activity activity, sim::Picos now) {
    settle(now);
    const size_t from = static_cast<size_t>(label_) * kActivities + static_cast<size_t>(activity_);
    const size_t to = static_cast<size_t>(label) * kActivities + static_cast<size_t>(activity);
    if (to >= table_.size()) table_.resize((static_cast<size_t>(label) + 8) * kActivities, 0);
    const uint64_t moved = std::min<uint64_t>(t.count(), table_[from]);
    table_[from] -= moved;
    table_[to] += moved;
    if (Observer* o = tracer()) o->work_stolen(*this, label, sim::Picos(moved), now);
}

void CpuProfile::change(uint32_t label, Activity activity, sim::Picos now) {
    if (Observer* o = tracer()) o->function_changed(*this, label, activity, now);
    settle(now);
    label_ = label;
    activity_ = activity;
}

sim::Picos CpuProfile::time(uint32_t label, Activity a) const {
    const size_t idx = static_cast<size_t>(label) * kActivities + static_cast<size_t>(a);
    return sim::Picos(idx < table_.size() ? table_[idx] : 0);
}

sim::Picos CpuProfile::time_in(Activity a) const {
    uint64_t t = 0;
    for (size_t i = static_cast<size_t>(a); i < table_.size(); i += kActivities) t += table_[i];
    return sim::Picos(t);
}

sim::Picos CpuProfile::time_in_label(uint32_t label) const {
    uint64_t t = 0;
    for (size_t a = 0; a < kActivities; ++a) t += time(label, static_cast<Activity>(a)).count();
    return sim::Picos(t);
}

sim::Picos CpuProfile::total() const {
    uint64_t t = 0;
    for (uint64_t x : table_) t += x;
    return sim::Picos(t);
}

void CpuProfile::reset(sim::Picos now) {
    if (Observer* o = observer()) o->profile_reset(*this, now);
    std::fill(table_.begin(), table_.end(), 0);
    since_ = now.count();
}

}  // namespace ipisim::hw
