#include "kernel/tlbflush/tlb_flush_protocol.h"

#include <fmt/format.h>

#include <stdexcept>

#include "kernel/mm/mm.h"
#include "sim/registry.h"

namespace ipisim::kernel {

std::string TlbFlushProtocol::machine_support(const hw::MachineSpec& machine) const {
    if (machine.arch != hw::Arch::x86) {
        // arm64 Linux flushes remote TLBs with broadcast TLBI instructions, not by this code.
        return "needs an x86 machine (it runs arch/x86/mm/tlb.c)";
    }
    return "";
}

sim::Task<> TlbFlushProtocol::flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& cpumask, const mm::FlushTlbInfo& info) {
    return mm().native_flush_tlb_multi(self, cpumask, info);
}

sim::Task<bool> TlbFlushProtocol::ipi_flush_must_reach_all(hw::Cpu& /*self*/, const mm::FlushTlbInfo& info) {
    co_return info.freed_tables;
}

sim::Task<> TlbFlushProtocol::broadcast_tlb_flush(hw::Cpu& /*self*/, const mm::FlushTlbInfo& /*info*/) {
    throw std::logic_error("broadcast_tlb_flush: this protocol has no global ASIDs");
    co_return;
}

sim::Task<bool> TlbFlushProtocol::defer_release(hw::Cpu& /*self*/, mm::TlbRelease& /*r*/) {
    co_return false;
}

sim::Task<> TlbFlushProtocol::switch_mm_done(hw::Cpu& /*cpu*/) {
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
    const std::string why = make_tlb_flush_protocol(name)->machine_support(machine);
    if (why.empty()) return "";
    return fmt::format("\"{}\" on machine {}: {}", name, machine.name, why);
}

std::string tlb_flush_protocol_names() {
    return sim::Registry<TlbFlushProtocol>::instance().names();
}

}  // namespace ipisim::kernel
