#include "hw/tlb/invlpgb.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "hw/check_hooks.h"

namespace ipisim::hw {

namespace {

// Event tags: this base + target CPU (deterministic, hashed into the fingerprint).
constexpr uint32_t kInvlpgbTag = 0x1B00'0000;

}  // namespace

InvlpgbOp InvlpgbOp::user_nr(Pcid pcid, uint64_t addr, uint32_t nr, bool pmd_stride) {
    InvlpgbOp op;
    op.va_valid = op.pcid_valid = true;
    op.pmd_stride = pmd_stride;
    op.pcid = pcid;
    op.addr = addr;
    op.nr_pages = nr;
    return op;
}

InvlpgbOp InvlpgbOp::single_pcid(Pcid pcid) {
    InvlpgbOp op;
    op.pcid_valid = true;
    op.pcid = pcid;
    return op;
}

InvlpgbOp InvlpgbOp::kernel_addr(uint64_t addr, uint32_t nr) {
    InvlpgbOp op;
    op.va_valid = op.include_global = true;
    op.addr = addr;
    op.nr_pages = nr;
    return op;
}

InvlpgbOp InvlpgbOp::all() {
    InvlpgbOp op;
    op.include_global = true;
    return op;
}

InvlpgbOp InvlpgbOp::all_nonglobals() {
    return InvlpgbOp{};
}

Invalidation InvlpgbOp::invalidation() const {
    Invalidation inv = va_valid ? Invalidation::range(pcid, addr, nr_pages, pmd_stride ? kPageShift2m : kPageShift4k)
                                : Invalidation::pcid_all(pcid);
    inv.any_pcid = !pcid_valid;
    inv.include_global = include_global;
    return inv;
}

Invlpgb::Invlpgb(sim::Engine& eng, const MachineSpec& spec, std::vector<Tlb*> tlbs)
    : eng_(eng), spec_(spec), tlbs_(std::move(tlbs)), completion_(tlbs_.size()) {
    if (tlbs_.size() != spec_.topology.nr_cpus()) {
        throw std::invalid_argument(
            fmt::format("Invlpgb: {} TLBs for {} CPUs", tlbs_.size(), spec_.topology.nr_cpus()));
    }
}

void Invlpgb::validate(const InvlpgbOp& op) const {
    const uint32_t max = spec_.tlb.invlpgb_count_max;
    if (max == 0) throw std::logic_error(fmt::format("INVLPGB on {}, which has none", spec_.name));
    if (op.va_valid && (op.nr_pages == 0 || op.nr_pages > max)) {
        throw std::logic_error(fmt::format("INVLPGB of {} pages; invlpgb_count_max is {}", op.nr_pages, max));
    }
}

sim::Task<> Invlpgb::invlpgb(Cpu& issuer, InvlpgbOp op) {
    validate(op);
    ++stats_.invlpgb;
    if (op.va_valid) stats_.pages += op.nr_pages;
    co_await issuer.stall(spec_.tlb.invlpgb_issue);
    const sim::Picos sent = eng_.now();
    const CpuId from = issuer.id();
    sim::Picos done = completion_[from];
    for (CpuId c = 0; c < tlbs_.size(); ++c) {
        const sim::Picos one_way = spec_.intc.delivery.at(spec_.topology.distance(from, c));
        uint32_t slot = 0;
        if (free_slots_.empty()) {
            slot = static_cast<uint32_t>(deliveries_.size());
            deliveries_.push_back(Delivery{op, c});
        } else {
            slot = free_slots_.back();
            free_slots_.pop_back();
            deliveries_[slot] = Delivery{op, c};
        }
        // URGENT: at the arrival instant the translation is gone for any code running then.
        eng_.schedule_at(sent + one_way, &Invlpgb::on_deliver, this, slot, kInvlpgbTag + c, sim::Priority::Urgent);
        done = std::max(done, sent + one_way + one_way);
    }
    completion_[from] = done;
    IPISIM_CHECK_HOOK(invlpgb_issued(from, !op.va_valid && !op.pcid_valid));
}

void Invlpgb::on_deliver(void* obj, uint32_t slot) {
    auto* self = static_cast<Invlpgb*>(obj);
    const Delivery& d = self->deliveries_[slot];
    self->tlbs_[d.target]->invalidate(d.op.invalidation());
    ++self->stats_.applied;
    self->free_slots_.push_back(slot);
}

sim::Task<> Invlpgb::tlbsync(Cpu& issuer) {
    const sim::Picos now = eng_.now();
    const sim::Picos end = std::max(now + spec_.tlb.tlbsync, completion_[issuer.id()]);
    ++stats_.tlbsync;
    stats_.tlbsync_stall += end - now;
    co_await issuer.stall(end - now);
    IPISIM_CHECK_HOOK(tlbsync_returned(issuer.id()));
}

}  // namespace ipisim::hw
