// A test-only workload: echoes its parameters into metrics without running an engine, so the
// experiment loader and runner can be tested on their own. Parameters: cpus (integer, required),
// delay (duration, optional), label (string, optional); anything else is an unknown key.
#include "sim/registry.h"
#include "workload/workload.h"

namespace ipisim::workload {
namespace {

uint64_t splitmix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

class TestEcho : public Workload {
public:
    RunResult run(config::Table& params, const RunContext& ctx) override {
        RunResult r;
        const auto cpus = params.get<int64_t>("cpus");
        const sim::Picos delay = params.duration_or("delay", sim::Picos::zero());
        const std::string label = params.get_or<std::string>("label", "");
        params.finish();
        r.metrics["cpus"] = cpus;
        r.metrics["delay_ns"] = delay.ns();
        if (!label.empty()) r.metrics["label"] = label;
        r.fingerprint = splitmix(ctx.seed ^ splitmix(static_cast<uint64_t>(cpus) ^ splitmix(delay.count())));
        r.events = static_cast<uint64_t>(cpus);
        return r;
    }
};

const sim::Registration<Workload, TestEcho> registration("workload", "test_echo",
                                                         "test only: echoes cpus, delay and label into metrics");

}  // namespace
}  // namespace ipisim::workload
