#include "kernel/tlbflush/tlb_flush_protocol.h"

#include <stdexcept>

#include "sim/registry.h"

namespace ipisim::kernel {

sim::Task<> TlbFlushProtocol::broadcast_tlb_flush(hw::Cpu& /*self*/, const mm::FlushTlbInfo& /*info*/) {
    throw std::logic_error("broadcast_tlb_flush: this protocol has no global ASIDs");
    co_return;
}

sim::Task<> TlbFlushProtocol::consider_global_asid(hw::Cpu& /*self*/, mm::MmStruct& /*mm*/) {
    co_return;
}

std::unique_ptr<TlbFlushProtocol> make_tlb_flush_protocol(const std::string& name) {
    auto p = sim::Registry<TlbFlushProtocol>::instance().create(name);
    if (!p) {
        throw std::invalid_argument("unknown TLB flush protocol \"" + name +
                                    "\"; registered: " + tlb_flush_protocol_names());
    }
    return p;
}

std::string tlb_flush_protocol_check(const std::string& name, const hw::MachineSpec& machine) {
    return make_tlb_flush_protocol(name)->check(machine);
}

std::string tlb_flush_protocol_names() {
    return sim::Registry<TlbFlushProtocol>::instance().names();
}

}  // namespace ipisim::kernel
