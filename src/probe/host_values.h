// The values of each host.toml section: measured (P, from a probe figure) or assumed (A, with
// a plausible range and the rationale). Assumptions given in cycles are converted with the
// measured core clock; where a VM changes a cost (an MSR access or an IPI send exits to the
// host) the assumption says so and differs from the bare-metal one.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "hw/topology.h"
#include "probe/results.h"

namespace ipisim::probe {

class HostValues {
public:
    // `root` already holds arch, vendor and [topology].
    HostValues(const ProbeResults& r, const toml::table& root);

    toml::table clock() const;
    toml::table coherence() const;
    toml::table cpu() const;
    toml::array idle() const;
    toml::table intc() const;
    toml::table tlb() const;

private:
    // P: the median, range [p5, p95], source naming the method, date, command, N and spread.
    toml::table measured_ns(const Spread& s, const std::string& method) const;
    // A: value and plausible range in ns, or in cycles at the measured clock.
    static toml::table assumed_ns(double ns, double lo, double hi, const std::string& why);
    toml::table assumed_cycles(double cycles, double lo, double hi, const std::string& why) const;
    // P when measured, else A with the skip reason in the rationale.
    toml::table measured_or_assumed(const Spread& s, const std::string& method, double ns, double lo, double hi,
                                    const std::string& why) const;
    toml::table fabric() const;
    toml::table intc_params(const std::string& kind) const;

    const ProbeResults& r_;
    bool x86_ = true;
    bool amd_ = false;
    bool vm_ = false;
    double mhz_ = 2000;        // the clock cycles are converted with
    std::string clock_basis_;  // where mhz_ comes from
    hw::Topology model_;       // the [topology] as the model reads it
};

}  // namespace ipisim::probe
