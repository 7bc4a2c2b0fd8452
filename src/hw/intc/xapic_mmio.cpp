#include "hw/intc/xapic_mmio.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "hw/cpu/cpu.h"
#include "hw/intc/intc_type.h"

namespace ipisim::hw {

using sim::Picos;

namespace {

constexpr uint64_t kMaxXapicId = 0xFE;
constexpr const char* kRoundTrip = "rar_round_trip = true";

// The ICR busy time includes the router's occupancy (docs/mechanisms.md §3.5).
FabricProblem xapic_fabric_problem(const XapicParams& p, const IntcSpec& intc) {
    if (p.icr_busy >= intc.router_service) return {};
    return {"router_service",
            fmt::format("{} is longer than intc.params.icr_busy {}: the ICR stays busy until the router has taken the "
                        "message",
                        sim::to_string(intc.router_service), sim::to_string(p.icr_busy))};
}

}  // namespace

const config::Schema<XapicParams>& xapic_params_schema() {
    static const auto s = [] {
        config::Schema<XapicParams> p("machine.intc.params", "xAPIC (MMIO interface)");
        p.param("icr_write", &XapicParams::icr_write, "one ICR or ICR2 MMIO write").cost();
        p.param("icr_read", &XapicParams::icr_read, "one ICR MMIO read (a poll of the delivery-status bit)").cost();
        p.param("icr_busy", &XapicParams::icr_busy,
                "delivery-status busy time after a send, uncontended (the package router's occupancy included)")
            .cost();
        p.param("icr_busy_per_inflight", &XapicParams::icr_busy_per_inflight,
                "extra busy time per interrupt message already in flight")
            .cost();
        p.param("rar_round_trip", &XapicParams::rar_round_trip,
                "a RAR-mode send (APIC_DM_RAR, the remote-read encoding) is a request/reply round trip: the target "
                "accepts it only while its RAR microcode is idle, the sender's ICR stays busy until the reply")
            .sets(kRoundTrip, [](const XapicParams& v) { return v.rar_round_trip; });
        p.param("rar_reply", &XapicParams::rar_reply,
                "round trip: from the target's acceptance of a RAR to the sender's delivery status idle")
            .cost()
            .when(kRoundTrip);
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
    icr_.clear();
    for (CpuId c = 0; c < nr_cpus(); ++c) icr_.push_back(std::make_unique<Icr>());
}

void XapicMmio::set_icr_busy(const Cpu& sender, Picos router_wait, Picos load) {
    icr_[sender.id()]->idle_at = sender.now() + params().icr_busy + router_wait + load;
}

void XapicMmio::on_accepted(CpuId sender, CpuId /*target*/, DeliveryMode mode) {
    if (mode != DeliveryMode::rar || !params().rar_round_trip) return;
    Icr& icr = *icr_.at(sender);
    if (!icr.awaiting_reply) throw std::logic_error("xAPIC: a RAR reply nobody is waiting for");
    icr.awaiting_reply = false;
    icr.idle_at = engine().now() + params().rar_reply;
    icr.reply.notify_all();
}

// Not a coroutine (no frame of its own on the hot path): ICR2 latches the destination at once.
sim::Task<> XapicMmio::write_icr2(Cpu& sender, uint32_t apic_id) {
    icr_[sender.id()]->icr2 = apic_id;
    return sender.stall(params().icr_write);
}

// The ICR is uncacheable memory: its write is ordered after every older store (Intel SDM vol.
// 3A §11.3: UC accesses are strongly ordered), so the message leaves once the sender's store
// buffer has drained (hw/coherence/store_buffer.h); the sender then polls the ICR anyway.
sim::Task<> XapicMmio::write_icr(Cpu& sender, uint32_t vector, DeliveryMode mode) {
    ++stats_.register_writes;
    co_await sender.drain_stores();
    co_await sender.stall(params().icr_write);
    Icr& icr = *icr_[sender.id()];
    const uint32_t dest = icr.icr2;
    if (dest >= cpu_of_id_.size() || cpu_of_id_[dest] == kNoCpu) {
        throw std::invalid_argument(fmt::format("xAPIC ICR write to unknown APIC id {}", dest));
    }
    if (icr.awaiting_reply) throw std::logic_error("xAPIC: ICR written while a RAR round trip is pending");
    if (mode == DeliveryMode::rar && params().rar_round_trip) {
        icr.awaiting_reply = true;  // busy until on_accepted() knows the reply's time
        post(sender, cpu_of_id_[dest], vector, mode);
        co_return;
    }
    const Picos load = params().icr_busy_per_inflight * fabric().in_flight();
    const Picos router_wait = post(sender, cpu_of_id_[dest], vector, mode);
    set_icr_busy(sender, router_wait, load);
}

sim::Task<> XapicMmio::write_icr_shorthand(Cpu& sender, DestShorthand which, uint32_t vector, DeliveryMode mode) {
    if (mode == DeliveryMode::rar && params().rar_round_trip) {
        throw std::invalid_argument("xAPIC: a round-trip RAR has one target, not a destination shorthand");
    }
    ++stats_.register_writes;
    co_await sender.drain_stores();  // ordered after older stores, as write_icr
    co_await sender.stall(params().icr_write);
    if (icr_[sender.id()]->awaiting_reply)
        throw std::logic_error("xAPIC: ICR written while a RAR round trip is pending");
    const Picos load = params().icr_busy_per_inflight * fabric().in_flight();
    const Picos router_wait = post_shorthand(sender, which, vector, mode);
    set_icr_busy(sender, router_wait, load);
}

// Not a coroutine when the busy end is known.
sim::Task<> XapicMmio::read_icr_until_idle(Cpu& sender) {
    if (icr_[sender.id()]->awaiting_reply) return read_icr_until_reply(sender);
    return read_icr_from(sender, sender.now());
}

sim::Task<> XapicMmio::read_icr_until_reply(Cpu& sender) {
    const Picos start = sender.now();
    Icr& icr = *icr_[sender.id()];
    while (icr.awaiting_reply) co_await sender.wait_on(icr.reply);  // the senders save IRQs off
    co_await read_icr_from(sender, start);
}

sim::Task<> XapicMmio::read_icr_from(Cpu& sender, Picos start) {
    const Picos idle_at = icr_[sender.id()]->idle_at;
    const Picos busy = idle_at > start ? idle_at - start : Picos::zero();
    const Picos read = params().icr_read;
    uint64_t polls = 1;
    Picos end = start + std::max(busy, read);
    if (read > Picos::zero()) {
        polls = std::max<uint64_t>(1, (busy.count() + read.count() - 1) / read.count());
        end = start + read * polls;
    }
    stats_.icr_polls += polls;
    return sender.stall(end - sender.now());
}

namespace {

const IntcRegistration<XapicMmio, XapicParams> reg(
    "xapic_mmio",
    "xAPIC MMIO, Linux physical mode: per target wait for the own ICR idle (until the package router took the "
    "message; RAR round trip: until the target's reply), write ICR2 and ICR",
    {Arch::x86}, xapic_params_schema, xapic_topology_problem, xapic_fabric_problem);

}  // namespace

}  // namespace ipisim::hw
