// One simulated machine instance, assembled from a MachineSpec: the CPUs (SMT siblings wired),
// the coherent memory, and the interrupt controller with its delivery fabric.
//
//   sim::Engine eng;
//   hw::MachineSpec spec = hw::load_machine_by_name(dir, "kunpeng920");
//   hw::Platform plat(eng, spec);
//   plat.cpu(3).set_running(&eng.spawn("cpu3", body(plat.cpu(3))));
#pragma once

#include <memory>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"
#include "hw/intc/interrupt_controller.h"
#include "hw/machine.h"
#include "sim/engine.h"

namespace ipisim::hw {

class Platform {
public:
    Platform(sim::Engine& eng, const MachineSpec& spec);
    ~Platform();
    Platform(const Platform&) = delete;
    Platform& operator=(const Platform&) = delete;

    [[nodiscard]] sim::Engine& engine() const { return eng_; }
    [[nodiscard]] const MachineSpec& spec() const { return spec_; }
    [[nodiscard]] const Topology& topology() const { return spec_.topology; }
    [[nodiscard]] uint32_t nr_cpus() const { return spec_.topology.nr_cpus(); }
    [[nodiscard]] Cpu& cpu(CpuId c) { return *cpus_.at(c); }
    [[nodiscard]] Memory& memory() { return memory_; }
    [[nodiscard]] InterruptController& intc() { return *intc_; }

private:
    sim::Engine& eng_;
    const MachineSpec& spec_;
    Memory memory_;
    std::vector<std::unique_ptr<Cpu>> cpus_;
    std::unique_ptr<InterruptController> intc_;
};

}  // namespace ipisim::hw
