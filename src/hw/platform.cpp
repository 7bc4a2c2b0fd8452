#include "hw/platform.h"

namespace ipisim::hw {

Platform::Platform(sim::Engine& eng, const MachineSpec& spec)
    : eng_(eng), spec_(spec), memory_(eng, spec.topology, spec.coherence) {
    const Topology& topo = spec.topology;
    cpus_.reserve(topo.nr_cpus());
    for (CpuId c = 0; c < topo.nr_cpus(); ++c) {
        cpus_.push_back(std::make_unique<Cpu>(eng, c, spec));
        cpus_.back()->set_store_buffers(memory_.store_buffers());
    }
    for (CpuId c = 0; c < topo.nr_cpus(); ++c) {
        for (CpuId s : topo.siblings(c)) {
            if (s != c) cpus_[c]->add_sibling(cpus_[s].get());
        }
    }
    std::vector<Cpu*> ptrs;
    for (auto& c : cpus_) ptrs.push_back(c.get());
    intc_ = make_interrupt_controller(spec, eng, ptrs);

    std::vector<Tlb*> tlb_ptrs;
    for (CpuId c = 0; c < topo.nr_cpus(); ++c) {
        tlbs_.push_back(std::make_unique<Tlb>(c, spec.tlb.entries));
        tlb_ptrs.push_back(tlbs_.back().get());
    }
    if (spec.tlb.invlpgb_count_max > 0) invlpgb_ = std::make_unique<Invlpgb>(eng, spec, tlb_ptrs);
    if (spec.tlb.rar_payloads > 0) {
        rar_ = std::make_unique<Rar>(eng, spec, memory_, ptrs, tlb_ptrs);
        intc_->fabric().set_rar_hook([this](CpuId target, CpuId sender) { rar_->deliver(target, sender); });
        if (intc_->rar_round_trip()) {  // docs/mechanisms.md §3.5: accepted only while the microcode is idle
            intc_->fabric().set_rar_busy([this](CpuId c) { return rar_->scanning(c); });
            rar_->set_idle_hook([this](CpuId c) { intc_->fabric().rar_ready(c); });
        }
    }
}

// Coroutine frames may reference CPUs and memory: destroy them first.
Platform::~Platform() {
    eng_.shutdown();
}

}  // namespace ipisim::hw
