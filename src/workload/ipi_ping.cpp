#include "workload/ipi_ping.h"

#include <memory>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/registry.h"
#include "sim/rng.h"
#include "sim/signal.h"
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
    r.events = s.eng.events_dispatched();
    r.fingerprint = s.eng.fingerprint();
    r.simulated = s.eng.now();
    s.eng.shutdown();
    return r;
}

namespace {

class IpiPingWorkload : public Workload {
public:
    RunResult run(config::Table& params, const RunContext& ctx) override {
        IpiPingParams p;
        const auto cpus = params.get<int64_t>("cpus");
        if (cpus < 2 || cpus > 65536) params.fail("cpus", "must be between 2 and 65536");
        p.cpus = static_cast<uint32_t>(cpus);
        p.duration = params.duration("duration");
        p.delay_min = params.duration("delay_min");
        p.delay_max = params.duration("delay_max");
        p.wake_latency = params.duration("wake_latency");
        params.finish();
        if (p.delay_max < p.delay_min) params.fail("delay_max", "must not be below delay_min");
        if (p.delay_min == sim::Picos::zero()) params.fail("delay_min", "must be above zero");

        IpiPingResult r = run_ipi_ping(p, ctx.seed);
        RunResult out;
        out.metrics["sends"] = r.sends;
        out.metrics["handler_wakeups"] = r.wakeups;
        out.metrics["sends_per_cpu_per_us"] = static_cast<double>(r.sends) / p.cpus / r.simulated.us();
        out.metrics["events"] = r.events;
        out.fingerprint = r.fingerprint;
        out.events = r.events;
        out.simulated_seconds = r.simulated.seconds();
        return out;
    }
};

const sim::Registration<Workload, IpiPingWorkload> reg(
    "workload", "ipi_ping", "engine demo: N CPUs compute a random time, then wake a random other CPU's handler");

}  // namespace

}  // namespace ipisim::workload
