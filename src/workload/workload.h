// A workload: the benchmark program a seed experiment runs (ipi_latency, tlb_flush2, ...). It
// declares its parameters and metrics with config::Schema, so they are read strictly, listed
// (`ipisim list --params WORKLOAD`) and written into the resolved config.toml.
//
// One workload object per sweep point, in two phases. Before any point runs, the experiment
// layer calls read() with the point's [params] and check() against the machine and [kernel]
// configuration the point will run on; every mistake is a ConfigError at its key. Then run()
// simulates the point on the kernel it is given and returns named metrics.
//
//   class TlbFlush2 : public SchemaWorkload<TlbFlush2, Params, Metrics> {
//       static const config::Schema<Params>& params_schema();
//       static const config::Schema<Metrics>& metrics_schema();
//       static WorkloadTraits traits() { return {.x86_only = true}; }
//       void check(const PointSetup& s) const override;
//       RunResult run(const RunContext& ctx) override;
//   };
//   const sim::Registration<Workload, TlbFlush2> reg("workload", "tlb_flush2", "...");
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "config/schema.h"
#include "config/table.h"
#include "kernel/kernel.h"

namespace ipisim::workload {

// What a workload needs of the machine it runs on.
struct WorkloadTraits {
    bool needs_machine = true;     // false: no machine model behind it (the engine demo)
    bool x86_only = false;         // it models x86 code (MSRs, arch/x86/mm/tlb.c)
    bool reports_profile = false;  // its results carry the profile of busy CPU time
};

struct WorkloadInfo {
    config::SchemaInfo params;
    config::SchemaInfo metrics;  // metric names, types, units; `when` marks conditional ones
    WorkloadTraits traits;
};

// What check() sees: the point's tables (for located errors) and what it will run on.
struct PointSetup {
    config::Table& params;
    config::Table& kernel_table;
    const kernel::MachineInfo& machine;
    const kernel::KernelConfig& kernel;
};

struct RunContext {
    uint64_t seed = 1;
    // The kernel of the point's system; nullptr for workloads without a machine.
    kernel::Kernel* kernel = nullptr;
};

struct RunResult {
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    // The engine's part: filled by the experiment layer from the system it ran on, or by a
    // workload without a machine from its own engine.
    uint64_t fingerprint = 0;      // the engine's run fingerprint
    uint64_t events = 0;           // events dispatched
    double simulated_seconds = 0;  // simulated time covered
    // Where busy CPU time went, perf-report style: {"function (activity)": share}, largest
    // first (filled by the experiment layer for workloads that report it).
    nlohmann::ordered_json profile = nlohmann::ordered_json::object();
};

class Workload {
public:
    virtual ~Workload() = default;
    [[nodiscard]] virtual WorkloadInfo info() const = 0;
    // Reads this point's parameters strictly (unknown keys are errors): types, units, choices,
    // bounds. No machine is known yet.
    virtual void read(config::Table& params) = 0;
    // Writes the parameters read, defaults included, into `out` (the resolved [params]).
    virtual void write(toml::table& out) const = 0;
    // Checks the parameters read against the machine and kernel of the point.
    virtual void check(const PointSetup& /*setup*/) const {}
    // Simulates the point.
    virtual RunResult run(const RunContext& ctx) = 0;
};

// Metric values as JSON in the schema's declaration order (absent optional ones left out).
template <class M>
nlohmann::ordered_json metrics_json(const config::Schema<M>& schema, const M& m);

// The common part of a workload with a Params and a Metrics struct (see the header comment).
template <class Derived, class P, class M>
class SchemaWorkload : public Workload {
public:
    [[nodiscard]] WorkloadInfo info() const override {
        return WorkloadInfo{Derived::params_schema().info(), Derived::metrics_schema().info(), Derived::traits()};
    }
    void read(config::Table& params) override { Derived::params_schema().read_into(params, p_); }
    void write(toml::table& out) const override { Derived::params_schema().write(p_, out); }

protected:
    [[nodiscard]] const P& p() const { return p_; }
    // The RunResult of a Metrics value.
    static RunResult result(const M& m) {
        RunResult r;
        r.metrics = metrics_json(Derived::metrics_schema(), m);
        return r;
    }

private:
    P p_{};
};

namespace detail {
nlohmann::ordered_json scalar_json(const config::detail::Scalar& s);
}

template <class M>
nlohmann::ordered_json metrics_json(const config::Schema<M>& schema, const M& m) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [key, s] : schema.values(m)) out[key] = detail::scalar_json(s);
    return out;
}

}  // namespace ipisim::workload
