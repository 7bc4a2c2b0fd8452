// A test-only workload: echoes its parameters into metrics without running an engine, so the
// experiment loader and runner can be tested on their own. Parameters: cpus (integer,
// required), delay (duration, default 0 ns), label (string, default ""); no machine. The label
// "0/0" makes delay_ns 0/0 (a metric the point cannot define).
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

struct Params {
    int64_t cpus = 0;
    sim::Picos delay;
    std::string label;
};

struct Metrics {
    int64_t cpus = 0;
    double delay_ns = 0;
    std::optional<std::string> label;
};

class TestEcho : public SchemaWorkload<TestEcho, Params, Metrics> {
public:
    static const config::Schema<Params>& params_schema() {
        static const auto s = config::Schema<Params>("workload.test_echo", "test only")
                                  .param("cpus", &Params::cpus, "echoed")
                                  .param("delay", &Params::delay, "echoed in ns")
                                  .def(sim::Picos::zero())
                                  .param("label", &Params::label, "echoed when not empty")
                                  .def(std::string());
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const auto s = config::Schema<Metrics>("workload.test_echo.metrics", "")
                                  .param("cpus", &Metrics::cpus, "the cpus parameter")
                                  .param("delay_ns", &Metrics::delay_ns, "the delay parameter")
                                  .unit("ns")
                                  .param("label", &Metrics::label, "the label parameter, when not empty");
        return s;
    }
    static WorkloadTraits traits() { return WorkloadTraits{.needs_machine = false}; }

    RunResult run(const RunContext& ctx) override {
        Metrics m;
        m.cpus = p().cpus;
        m.delay_ns = p().delay.ns();
        if (p().label == "0/0") m.delay_ns = p().delay.ns() / static_cast<double>(p().delay.count());
        if (!p().label.empty()) m.label = p().label;
        RunResult r = result(m);
        r.fingerprint = splitmix(ctx.seed ^ splitmix(static_cast<uint64_t>(p().cpus) ^ splitmix(p().delay.count())));
        r.events = static_cast<uint64_t>(p().cpus);
        return r;
    }
};

const sim::Registration<Workload, TestEcho> registration("workload", "test_echo",
                                                         "test only: echoes cpus, delay and label into metrics");

}  // namespace
}  // namespace ipisim::workload
