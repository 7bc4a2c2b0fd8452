#include "check/explore.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace ipisim::check {

ExploreResult explore(const ExploreSpec& spec) {
    // A small thread pool of its own: workers take the next seed until none is left or a lower
    // seed already failed.
    std::atomic<uint64_t> next{0};
    std::atomic<uint64_t> lowest_fail{UINT64_MAX};
    std::mutex m;
    ExploreResult out;
    std::vector<StressResult> failures;
    std::vector<uint64_t> failed_seeds;
    std::string error;
    auto worker = [&] {
        for (;;) {
            const uint64_t i = next.fetch_add(1);
            if (i >= spec.seeds || i > lowest_fail.load()) return;
            StressSpec s = spec.base;
            s.seed = spec.first_seed + i;
            StressResult r;
            try {
                r = run_check_stress(s);
            } catch (const std::exception& e) {
                const std::lock_guard<std::mutex> lock(m);
                if (error.empty()) error = fmt::format("seed {}: {}", s.seed, e.what());
                lowest_fail = 0;
                return;
            }
            const std::lock_guard<std::mutex> lock(m);
            out.flushes += r.flushes;
            out.accesses += r.accesses;
            ++out.seeds_run;
            if (r.total_violations > 0) {
                if (i < lowest_fail.load()) lowest_fail = i;
                failures.push_back(std::move(r));
                failed_seeds.push_back(i);
            }
        }
    };
    const uint32_t jobs = std::max<uint32_t>(1, std::min<uint64_t>(spec.jobs, spec.seeds));
    std::vector<std::thread> pool;
    for (uint32_t j = 1; j < jobs; ++j) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    if (!error.empty()) throw std::runtime_error(error);
    if (!failures.empty()) {
        const size_t k =
            static_cast<size_t>(std::min_element(failed_seeds.begin(), failed_seeds.end()) - failed_seeds.begin());
        out.failing_seed = spec.first_seed + failed_seeds[k];
        out.failure = std::move(failures[k]);
    }
    return out;
}

std::string replay_file_text(const StressSpec& spec, const std::string& machine_name) {
    return fmt::format(
        "# ipisim check --replay FILE: reruns this exact run.\n"
        "[check]\n"
        "protocol = \"{}\"\n"
        "machine = \"{}\"\n"
        "seed = {}\n"
        "ops_per_cpu = {}\n"
        "perturb = {}\n"
        "jitter_percent = {}\n"
        "delay_per_mille = {}\n"
        "max_delay_ps = {}\n"
        "store_buffer = {}\n",
        spec.protocol, machine_name, spec.seed, spec.ops_per_cpu, spec.perturb ? "true" : "false",
        spec.perturbation.jitter_percent, spec.perturbation.delay_per_mille, spec.perturbation.max_delay.count(),
        spec.machine.coherence.store_buffer);
}

std::string failure_report(const StressSpec& spec, const StressResult& r) {
    std::string out = fmt::format("VIOLATION: {} on {} (check_stress), seed {}: {} violation{}\n", spec.protocol,
                                  spec.machine.name, spec.seed, r.total_violations, r.total_violations == 1 ? "" : "s");
    if (!r.violations.empty()) {
        const Violation& v = r.violations.front();
        out += fmt::format("first: {} on cpu{} at {}\n{}\n", to_string(v.kind), v.cpu, sim::to_string(v.time),
                           v.diagnosis);
    }
    return out;
}

}  // namespace ipisim::check
