#include "hw/platform.h"

namespace ipisim::hw {

Platform::Platform(sim::Engine& eng, const MachineSpec& spec)
    : eng_(eng), spec_(spec), memory_(eng, spec.topology, spec.coherence) {
    const Topology& topo = spec.topology;
    cpus_.reserve(topo.nr_cpus());
    for (CpuId c = 0; c < topo.nr_cpus(); ++c) cpus_.push_back(std::make_unique<Cpu>(eng, c, spec));
    for (CpuId c = 0; c < topo.nr_cpus(); ++c) {
        for (CpuId s : topo.siblings(c)) {
            if (s != c) cpus_[c]->add_sibling(cpus_[s].get());
        }
    }
    std::vector<Cpu*> ptrs;
    for (auto& c : cpus_) ptrs.push_back(c.get());
    intc_ = make_interrupt_controller(spec, eng, ptrs);
}

// Coroutine frames may reference CPUs and memory: destroy them first.
Platform::~Platform() { eng_.shutdown(); }

}  // namespace ipisim::hw
