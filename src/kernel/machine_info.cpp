#include "kernel/machine_info.h"

#include <algorithm>

namespace ipisim::kernel {

bool MachineInfo::gicv3() const {
    return spec_.intc.kind == "gicv3";
}

std::optional<size_t> MachineInfo::idle_state(std::string_view name) const {
    for (size_t i = 0; i < spec_.idle.size(); ++i) {
        if (spec_.idle[i].name == name) return i;
    }
    return std::nullopt;
}

std::string MachineInfo::idle_state_names() const {
    std::string out;
    for (const hw::IdleState& s : spec_.idle) out += (out.empty() ? "" : ", ") + s.name;
    return out;
}

hw::CpuId MachineInfo::first_cpu_of_l3(uint32_t l3) const {
    const std::vector<hw::CpuId>& cpus = spec_.topology.cpus_in_l3(l3);
    return *std::min_element(cpus.begin(), cpus.end());
}

}  // namespace ipisim::kernel
