#include "workload/ipi_ping.h"

#include <memory>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/registry.h"
#include "sim/rng.h"
#include "sim/signal.h"
#include "workload/bounds.h"
#include "workload/workload.h"

namespace ipisim::workload {

namespace {

using sim::Picos;

struct PingCpu {
    sim::Signal handler_wake;
    sim::Rng rng;
    uint64_t sends = 0;
    uint64_t wakeups = 0;
};

struct PingSystem {
    sim::Engine eng;
    std::vector<std::unique_ptr<PingCpu>> cpus;
    IpiPingParams p;
};

void deliver(void* obj, uint32_t) {
    static_cast<PingCpu*>(obj)->handler_wake.notify_all();
}

sim::Proc sender(PingSystem& s, uint32_t i) {
    PingCpu& me = *s.cpus[i];
    const uint64_t lo = s.p.delay_min.count();
    const uint64_t hi = s.p.delay_max.count();
    const auto n = static_cast<uint32_t>(s.cpus.size());
    for (;;) {
        co_await sim::delay(s.eng, Picos(me.rng.uniform(lo, hi)));
        // A random CPU other than this one.
        auto j = static_cast<uint32_t>(me.rng.uniform(0, n - 2));
        if (j >= i) ++j;
        s.eng.schedule_in(s.p.wake_latency, &deliver, s.cpus[j].get(), 0, n + j);
        ++me.sends;
    }
}

sim::Proc handler(PingSystem& s, uint32_t i) {
    PingCpu& me = *s.cpus[i];
    for (;;) {
        co_await me.handler_wake.wait();
        ++me.wakeups;
    }
}

}  // namespace

IpiPingResult run_ipi_ping(const IpiPingParams& params, uint64_t seed) {
    PingSystem s;
    s.p = params;
    for (uint32_t i = 0; i < params.cpus; ++i) {
        auto c = std::make_unique<PingCpu>();
        c->rng = sim::Rng::stream(seed, "cpu." + std::to_string(i));
        s.cpus.push_back(std::move(c));
    }
    for (uint32_t i = 0; i < params.cpus; ++i) s.eng.spawn("handler", handler(s, i));
    for (uint32_t i = 0; i < params.cpus; ++i) s.eng.spawn("sender", sender(s, i));
    s.eng.run_until(params.duration);

    IpiPingResult r;
    for (const auto& c : s.cpus) {
        r.sends += c->sends;
        r.wakeups += c->wakeups;
    }
    r.events = s.eng.events_simulated();
    r.fingerprint = s.eng.fingerprint();
    r.simulated = s.eng.now();
    s.eng.shutdown();
    return r;
}

namespace {

struct Metrics {
    uint64_t sends = 0;
    uint64_t handler_wakeups = 0;
    double sends_per_cpu_per_us = 0;
    uint64_t events = 0;
};

class IpiPingWorkload : public SchemaWorkload<IpiPingWorkload, IpiPingParams, Metrics> {
public:
    static const config::Schema<IpiPingParams>& params_schema() {
        static const auto s =
            config::Schema<IpiPingParams>("workload.ipi_ping", "engine demo: random IPI ping between N CPUs")
                .param("cpus", &IpiPingParams::cpus, "simulated CPUs")
                .at_least(2)
                .at_most(65536)
                .param("duration", &IpiPingParams::duration, "simulated time to run")
                .at_least(1)
                .at_most(kMaxSimulatedPicos)
                .param("delay_min", &IpiPingParams::delay_min, "compute between sends, uniform in [min, max]")
                .at_least(1)
                .param("delay_max", &IpiPingParams::delay_max, "compute between sends, uniform in [min, max]")
                .check([](const IpiPingParams& p) {
                    return p.delay_max < p.delay_min ? "must not be below delay_min" : "";
                })
                .param("wake_latency", &IpiPingParams::wake_latency, "send -> handler wake-up");
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const auto s = config::Schema<Metrics>("workload.ipi_ping.metrics", "")
                                  .param("sends", &Metrics::sends, "pings sent")
                                  .param("handler_wakeups", &Metrics::handler_wakeups,
                                         "handler wake-ups (sends to a waiting handler "
                                         "coalesce)")
                                  .param("sends_per_cpu_per_us", &Metrics::sends_per_cpu_per_us, "send rate per CPU")
                                  .unit("1/us")
                                  .param("events", &Metrics::events, "engine events dispatched");
        return s;
    }
    static WorkloadTraits traits() { return WorkloadTraits{.needs_machine = false}; }

    RunResult run(const RunContext& ctx) override {
        const IpiPingResult r = run_ipi_ping(p(), ctx.seed);
        Metrics m;
        m.sends = r.sends;
        m.handler_wakeups = r.wakeups;
        m.sends_per_cpu_per_us = static_cast<double>(r.sends) / p().cpus / r.simulated.us();
        m.events = r.events;
        RunResult out = result(m);
        out.fingerprint = r.fingerprint;
        out.events = r.events;
        out.simulated_seconds = r.simulated.seconds();
        return out;
    }
};

const sim::Registration<Workload, IpiPingWorkload> reg(
    "workload", "ipi_ping", "engine demo: N CPUs compute a random time, then wake a random other CPU's handler");
const config::SchemaRegistration schema_reg("workload.ipi_ping",
                                            [] { return IpiPingWorkload::params_schema().info(); });

}  // namespace

}  // namespace ipisim::workload
