// One simulated machine instance, assembled from a MachineSpec: the CPUs (SMT siblings wired),
// the coherent memory, the interrupt controller with its delivery fabric, a TLB per CPU, and
// the broadcast invalidation units the machine has (INVLPGB, Intel RAR with its fabric hook).
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
#include "hw/tlb/invlpgb.h"
#include "hw/tlb/rar.h"
#include "hw/tlb/tlb.h"
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
    [[nodiscard]] Tlb& tlb(CpuId c) { return *tlbs_.at(c); }
    // nullptr when the machine has no INVLPGB (tlb.invlpgb_count_max = 0) / no RAR.
    [[nodiscard]] Invlpgb* invlpgb() { return invlpgb_.get(); }
    [[nodiscard]] Rar* rar() { return rar_.get(); }

private:
    sim::Engine& eng_;
    const MachineSpec& spec_;
    Memory memory_;
    std::vector<std::unique_ptr<Cpu>> cpus_;
    std::unique_ptr<InterruptController> intc_;
    std::vector<std::unique_ptr<Tlb>> tlbs_;
    std::unique_ptr<Invlpgb> invlpgb_;
    std::unique_ptr<Rar> rar_;
};

}  // namespace ipisim::hw
