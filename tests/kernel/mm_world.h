// Test fixture for kernel/mm and kernel/tlbflush scenarios: a machine from machines/, the
// kernel, and the mm layer with a named flush protocol; helpers to run work on CPUs.
#pragma once

#include <memory>
#include <string>

#include "hw/platform.h"
#include "kernel/kernel.h"
#include "kernel/mm/mm.h"

namespace ipisim::mmtest {

struct MmWorld {
    sim::Engine eng;
    hw::MachineSpec spec;
    std::unique_ptr<hw::Platform> plat;
    std::unique_ptr<kernel::Kernel> k;
    std::unique_ptr<kernel::mm::Mm> mm;
    explicit MmWorld(const std::string& machine, const std::string& protocol = "ipi") {
        spec = hw::load_machine(std::string(IPISIM_SOURCE_DIR) + "/machines/" + machine + ".toml");
        plat = std::make_unique<hw::Platform>(eng, spec);
        k = std::make_unique<kernel::Kernel>(*plat);
        mm = std::make_unique<kernel::mm::Mm>(*k, protocol);
    }
    ~MmWorld() {
        eng.shutdown();
        mm.reset();
        k.reset();
        plat.reset();
    }
    hw::Cpu& cpu(hw::CpuId c) { return plat->cpu(c); }
};

}  // namespace ipisim::mmtest
