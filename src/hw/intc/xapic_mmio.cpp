#include "hw/intc/xapic_mmio.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "hw/cpu/cpu.h"
#include "hw/intc/intc_type.h"

namespace ipisim::hw {

using sim::Picos;

namespace {

constexpr CpuId kNoCpu = ~CpuId{0};
constexpr uint64_t kMaxXapicId = 0xFE;

}  // namespace

const config::Schema<XapicParams>& xapic_params_schema() {
    static const auto s = [] {
        config::Schema<XapicParams> p("machine.intc.params", "xAPIC (MMIO interface)");
        p.param("icr_write", &XapicParams::icr_write, "one ICR or ICR2 MMIO write").cost();
        p.param("icr_read", &XapicParams::icr_read, "one ICR MMIO read (a poll of the delivery-status bit)").cost();
        p.param("icr_busy", &XapicParams::icr_busy, "delivery-status busy time after a send").cost();
        p.param("icr_busy_per_inflight", &XapicParams::icr_busy_per_inflight,
                "extra busy time per interrupt message already in flight")
            .cost();
        return p;
    }();
    return s;
}

std::string xapic_topology_problem(const Topology& topo) {
    uint64_t max_id = 0;
    for (const CpuInfo& c : topo.cpus()) max_id = std::max(max_id, c.hw_id);
    if (max_id <= kMaxXapicId) return "";
    return fmt::format("xAPIC ids are 8 bits (0xFF is broadcast); this topology needs APIC id {}", max_id);
}

void XapicMmio::on_attach() {
    params_ = &intc_params<XapicParams>(spec());
    cpu_of_id_.assign(kMaxXapicId + 1, kNoCpu);
    for (CpuId c = 0; c < nr_cpus(); ++c) cpu_of_id_.at(apic_id(c)) = c;
    icr2_.assign(nr_cpus(), 0);
    icr_idle_at_.assign(nr_cpus(), Picos::zero());
}

void XapicMmio::set_icr_busy(const Cpu& sender) {
    icr_idle_at_[sender.id()] =
        sender.now() + params().icr_busy + params().icr_busy_per_inflight * fabric().in_flight();
}

Picos XapicMmio::icr_busy_left(const Cpu& sender) const {
    const Picos idle_at = icr_idle_at_[sender.id()];
    return idle_at > sender.now() ? idle_at - sender.now() : Picos::zero();
}

// Not a coroutine (no frame of its own on the hot path): ICR2 latches the destination at once.
sim::Task<> XapicMmio::write_icr2(Cpu& sender, uint32_t apic_id) {
    icr2_[sender.id()] = apic_id;
    return sender.stall(params().icr_write);
}

sim::Task<> XapicMmio::write_icr(Cpu& sender, uint32_t vector, DeliveryMode mode) {
    ++stats_.register_writes;
    co_await sender.stall(params().icr_write);
    const uint32_t dest = icr2_[sender.id()];
    if (dest >= cpu_of_id_.size() || cpu_of_id_[dest] == kNoCpu) {
        throw std::invalid_argument(fmt::format("xAPIC ICR write to unknown APIC id {}", dest));
    }
    set_icr_busy(sender);
    post(sender, cpu_of_id_[dest], vector, mode);
}

sim::Task<> XapicMmio::read_icr_until_idle(Cpu& sender) {
    const Picos busy = icr_busy_left(sender);
    const Picos read = params().icr_read;
    uint64_t polls = 1;
    Picos wait = std::max(busy, read);
    if (read > Picos::zero()) {
        polls = std::max<uint64_t>(1, (busy.count() + read.count() - 1) / read.count());
        wait = read * polls;
    }
    stats_.icr_polls += polls;
    return sender.stall(wait);
}

namespace {

const IntcRegistration<XapicMmio, XapicParams> reg(
    "xapic_mmio",
    "xAPIC MMIO, Linux physical mode: per target wait for the own ICR idle (busy grows with IPIs in flight), "
    "write ICR2 and ICR",
    {Arch::x86}, xapic_params_schema, xapic_topology_problem);

}  // namespace

}  // namespace ipisim::hw
