// Schedule exploration's perturbation of timing (docs/checker.md, "Perturbation"): every
// cache-line transfer, every interrupt delivery and every store's wait in the store buffer
// before it may commit (machines with one) gets a seeded jitter of up to
// jitter_percent of its cost, and, with probability delay_per_mille / 1000, an injected delay of
// up to max_delay. Line transfers are the interleaving points of every kernel protocol (lock
// words, CSD flags, queue heads, RAR action bytes), so a rare long delay at one of them is the
// PCT-style "this CPU loses its priority here" change; jitter reorders near-simultaneous races.
// Installed only by the checker (hw::set_perturbation); off, the hooks return the cost as is.
#pragma once

#include <cstdint>

#include "hw/check_hooks.h"
#include "sim/rng.h"

namespace ipisim::check {

struct PerturbationSpec {
    uint32_t jitter_percent = 50;
    uint32_t delay_per_mille = 2;
    sim::Picos max_delay = sim::Picos(5'000'000);  // 5 us
};

class SeededPerturbation final : public hw::Perturbation {
public:
    SeededPerturbation(const PerturbationSpec& spec, uint64_t seed)
        : spec_(spec), rng_(sim::Rng::stream(seed, "check.perturbation")) {}

    sim::Picos line_transfer(sim::Picos cost) override { return perturb(cost); }
    sim::Picos delivery(sim::Picos latency) override { return perturb(latency); }
    sim::Picos store_commit(sim::Picos earliest) override { return perturb(earliest); }

    // Installs it as this thread's perturbation for the scope's lifetime.
    class Installed {
    public:
        explicit Installed(SeededPerturbation& p) : previous_(hw::set_perturbation(&p)) {}
        ~Installed() { hw::set_perturbation(previous_); }
        Installed(const Installed&) = delete;
        Installed& operator=(const Installed&) = delete;

    private:
        hw::Perturbation* previous_;
    };

private:
    sim::Picos perturb(sim::Picos t);

    PerturbationSpec spec_;
    sim::Rng rng_;
};

}  // namespace ipisim::check
