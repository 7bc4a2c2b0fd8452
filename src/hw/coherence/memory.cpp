#include "hw/coherence/memory.h"

namespace ipisim::hw {

Memory::Memory(sim::Engine& eng, const Topology& topo, const CoherenceSpec& spec)
    : eng_(eng),
      protocol_(eng, topo, spec),
      sb_(spec.store_buffer > 0 ? std::make_unique<StoreBuffers>(eng, protocol_, spec.store_buffer) : nullptr),
      holder_pool_(topo.nr_cpus()) {}

CacheLine& Memory::new_line(std::string name, uint32_t home_node) {
    const auto id = static_cast<uint32_t>(lines_.size());
    LineCold& cold = cold_.emplace_back(LineCold{{}, std::move(name), {}});
    return lines_.emplace_back(id, home_node, holder_pool_, cold);
}

SimVar& Memory::new_var(CacheLine& line, uint64_t initial) {
    const uint32_t offset = line.claim_slot();
    return vars_.emplace_back(line, offset, initial);
}

SimVar& Memory::new_aligned_var(std::string name, uint32_t home_node, uint64_t initial) {
    return new_var(new_line(std::move(name), home_node), initial);
}

LineStats Memory::total_stats() const {
    LineStats total;
    for (const CacheLine& l : lines_) total += l.stats();
    return total;
}

}  // namespace ipisim::hw
