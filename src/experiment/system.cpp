#include "experiment/system.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ipisim::experiment {

System::System(std::shared_ptr<const hw::MachineSpec> machine, kernel::KernelConfig config)
    : spec_(std::move(machine)),
      platform_(std::make_unique<hw::Platform>(eng_, *spec_)),
      kernel_(std::make_unique<kernel::Kernel>(*platform_, std::move(config))) {}

System::System(hw::MachineSpec machine, kernel::KernelConfig config)
    : System(std::make_shared<const hw::MachineSpec>(std::move(machine)), std::move(config)) {}

System::~System() {
    kernel_.reset();
    platform_.reset();
}

void System::record_run(workload::RunResult& out) const {
    out.fingerprint = eng_.fingerprint();
    out.events = eng_.events_simulated();
    out.simulated_seconds = eng_.now().seconds();
}

nlohmann::ordered_json System::profile(size_t top) {
    std::map<std::pair<uint32_t, hw::Activity>, uint64_t> sums;
    uint64_t total = 0;
    for (hw::CpuId c = 0; c < platform_->nr_cpus(); ++c) {
        hw::CpuProfile& prof = platform_->cpu(c).profile();
        prof.settle(eng_.now());
        for (uint32_t l = 0; l < prof.nr_labels(); ++l) {
            for (size_t a = 0; a < hw::kActivities; ++a) {
                const auto act = static_cast<hw::Activity>(a);
                const uint64_t t = prof.time(l, act).count();
                if (t == 0 || act == hw::Activity::idle) continue;
                sums[{l, act}] += t;
                total += t;
            }
        }
    }
    std::vector<std::pair<uint64_t, std::string>> entries;
    for (const auto& [key, t] : sums) {
        const std::string& name = hw::profile_label_name(key.first);
        entries.emplace_back(t, fmt::format("{} ({})", name, hw::to_string(key.second)));
    }
    // Largest first; ties by name, so the order is deterministic.
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    uint64_t shown = 0;
    for (size_t i = 0; i < entries.size() && i < top; ++i) {
        out[entries[i].second] = total ? static_cast<double>(entries[i].first) / static_cast<double>(total) : 0.0;
        shown += entries[i].first;
    }
    if (total > shown) out["(other)"] = static_cast<double>(total - shown) / static_cast<double>(total);
    return out;
}

}  // namespace ipisim::experiment
