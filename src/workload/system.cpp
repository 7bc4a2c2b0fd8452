#include "workload/system.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "config/error.h"

namespace ipisim::workload {

System::System(const RunContext& ctx, const std::string& workload) {
    if (ctx.machine.empty()) {
        throw config::ConfigError("(experiment)", 0, "experiment.machine",
                                  "the " + workload + " workload needs a machine");
    }
    spec = hw::load_machine_by_name(ctx.machines_dir, ctx.machine);
    build();
}

System::System(hw::MachineSpec machine) : spec(std::move(machine)) {
    build();
}

void System::build() {
    platform = std::make_unique<hw::Platform>(eng, spec);
    kernel = std::make_unique<kernel::Kernel>(*platform);
}

void System::record_run(RunResult& out) const {
    out.fingerprint = eng.fingerprint();
    out.events = eng.events_dispatched();
    out.simulated_seconds = eng.now().seconds();
}

void System::reset_profiles() {
    for (hw::CpuId c = 0; c < platform->nr_cpus(); ++c) platform->cpu(c).profile().reset(eng.now());
}

nlohmann::ordered_json System::profile(size_t top) const {
    std::map<std::pair<uint32_t, hw::Activity>, uint64_t> sums;
    uint64_t total = 0;
    for (hw::CpuId c = 0; c < platform->nr_cpus(); ++c) {
        hw::CpuProfile& prof = platform->cpu(c).profile();
        prof.settle(eng.now());
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

System::~System() {
    eng.shutdown();
    kernel.reset();
    platform.reset();
}

}  // namespace ipisim::workload
