#include "hw/tlb/rar.h"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/check_hooks.h"

namespace ipisim::hw {

namespace {

constexpr uint32_t kSlotsPerWord = 8;

uint64_t byte_mask(uint32_t slot) {
    return uint64_t{0xFF} << (8 * (slot % kSlotsPerWord));
}

}  // namespace

Invalidation RarPayload::invalidation() const {
    if (type != RarType::invpcid) {
        throw std::logic_error(fmt::format("RAR payload type {} is not modeled", static_cast<int>(type)));
    }
    switch (subtype) {
        case RarSubtype::addr:
            return Invalidation::range(pcid, linear_address, num_pages, page_shift(page_size));
        case RarSubtype::pcid:
            return Invalidation::pcid_all(pcid);
        case RarSubtype::all:
            return Invalidation::all(true);
        case RarSubtype::all_no_global:
            return Invalidation::all(false);
    }
    throw std::logic_error("RAR payload: bad INVPCID subtype");
}

Rar::Rar(sim::Engine& eng, const MachineSpec& spec, Memory& mem, std::vector<Cpu*> cpus, std::vector<Tlb*> tlbs)
    : eng_(eng),
      spec_(spec),
      mem_(mem),
      nr_payloads_(spec.tlb.rar_payloads),
      cpus_(std::move(cpus)),
      tlbs_(std::move(tlbs)),
      payloads_(nr_payloads_) {
    const uint32_t nr_cpus = spec_.topology.nr_cpus();
    if (nr_payloads_ == 0) throw std::logic_error(fmt::format("RAR on {}, which has none", spec_.name));
    if (nr_payloads_ > 64) throw std::invalid_argument("RAR: more than 64 payload slots");
    if (cpus_.size() != nr_cpus || tlbs_.size() != nr_cpus) {
        throw std::invalid_argument(
            fmt::format("Rar: {} CPUs and {} TLBs for {} CPUs", cpus_.size(), tlbs_.size(), nr_cpus));
    }
    for (uint32_t s = 0; s < nr_payloads_; ++s) {
        payload_lines_.push_back(&mem_.new_aligned_var(fmt::format("rar_payload[{}]", s), 0));
    }
    const uint32_t words = (nr_payloads_ + kSlotsPerWord - 1) / kSlotsPerWord;
    for (CpuId c = 0; c < nr_cpus; ++c) {
        auto pc = std::make_unique<PerCpu>();
        CacheLine& line = mem_.new_line(fmt::format("rar_action/cpu{}", c), spec_.topology.node_of(c));
        for (uint32_t w = 0; w < words; ++w) pc->action.push_back(&mem_.new_var(line, 0));
        line.prime(c);
        per_cpu_.push_back(std::move(pc));
    }
    for (CpuId c = 0; c < nr_cpus; ++c) eng_.spawn(fmt::format("rar_ucode/cpu{}", c), microcode(c));
}

void Rar::check_slot(uint32_t slot) const {
    if (slot >= nr_payloads_) throw std::out_of_range(fmt::format("RAR slot {} of {}", slot, nr_payloads_));
}

sim::Task<> Rar::write_payload(CpuId sender, uint32_t slot, RarPayload payload) {
    check_slot(slot);
    if (payload.subtype == RarSubtype::addr && (payload.num_pages == 0 || payload.num_pages > kRarMaxPages)) {
        throw std::logic_error(fmt::format("RAR payload of {} pages (at most {})", payload.num_pages, kRarMaxPages));
    }
    IPISIM_CHECK_HOOK(rar_payload_written(sender, slot));
    payloads_[slot] = payload;
    co_await mem_.store(sender, *payload_lines_[slot], payload.linear_address);
}

sim::Task<> Rar::set_action_pending(CpuId sender, CpuId target, uint32_t slot) {
    check_slot(slot);
    // set_action_entry(): WRITE_ONCE(bitmap[payload_nr], RAR_PENDING), a byte store; the
    // model keeps 8 action bytes in a word, so it stores the slot's byte only (a plain store:
    // with a store buffer it is visible later, its RFO overlapping the other targets').
    const uint8_t byte = peek_action(target, slot);
    if (byte == kRarFailure) throw std::logic_error("RAR: FAILURE byte overwritten by set_action_entry");
    if (byte != kRarPending) IPISIM_CHECK_HOOK(rar_action_pending(sender, target, slot));
    const uint32_t shift = 8 * (slot % kSlotsPerWord);
    co_await mem_.store_bytes(sender, action_word(target, slot), uint64_t{kRarPending} << shift,
                              uint64_t{0xff} << shift);
}

sim::Task<uint8_t> Rar::read_action(CpuId reader, CpuId target, uint32_t slot) {
    check_slot(slot);
    const uint64_t word = co_await mem_.load(reader, action_word(target, slot));
    co_return action_byte(word, slot);
}

void Rar::deliver(CpuId target, CpuId /*sender*/) {
    PerCpu& pc = *per_cpu_.at(target);
    ++pc.stats.received;
    if (pc.processing) {
        pc.rescan = true;
        return;
    }
    pc.processing = true;
    pc.kicked = true;
    pc.kick.notify_all();
}

void Rar::charge(CpuId cpu) {
    PerCpu& pc = *per_cpu_[cpu];
    const sim::Picos d = eng_.now() - pc.charged;
    pc.charged = eng_.now();
    pc.stats.stolen += d;
    Cpu* c = cpus_[cpu];
    static const uint32_t label = profile_label("rar_microcode");
    if (c != nullptr && !c->in_idle() && d > sim::Picos::zero()) c->steal(d, label);
}

sim::Proc Rar::microcode(CpuId cpu) {
    PerCpu& pc = *per_cpu_[cpu];
    for (;;) {
        while (!pc.kicked) co_await pc.kick.wait();
        pc.kicked = false;
        const Cpu* c = cpus_[cpu];
        if (c != nullptr && c->in_idle() && c->idle_state() != nullptr && !c->idle_state()->software_poll()) {
            pc.waking = true;
            co_await sim::delay(eng_, c->idle_state()->wake_latency);  // the core wakes up first
            pc.waking = false;
        }
        pc.charged = eng_.now();
        if (spec_.tlb.rar_entry > sim::Picos::zero()) {
            co_await sim::delay(eng_, spec_.tlb.rar_entry);  // the microcode takes the core
            charge(cpu);
        }
        co_await scan(cpu);
        while (pc.rescan) {
            ++pc.stats.rescans;
            co_await scan(cpu);
        }
        pc.processing = false;
        if (idle_hook_) idle_hook_(cpu);
    }
}

sim::Task<> Rar::scan(CpuId cpu) {
    PerCpu& pc = *per_cpu_[cpu];
    pc.rescan = false;
    ++pc.stats.scans;
    for (uint32_t w = 0; w < pc.action.size(); ++w) {
        const uint64_t word = co_await mem_.load(cpu, *pc.action[w]);
        charge(cpu);
        for (uint32_t s = w * kSlotsPerWord; s < (w + 1) * kSlotsPerWord && s < nr_payloads_; ++s) {
            if (action_byte(word, s) == kRarPending) co_await process_slot(cpu, s);
        }
    }
}

sim::Task<> Rar::process_slot(CpuId cpu, uint32_t slot) {
    PerCpu& pc = *per_cpu_[cpu];
    const RarPayload payload = payloads_[slot];  // linearized with the load below
    co_await mem_.load(cpu, *payload_lines_[slot]);
    co_await sim::delay(eng_, spec_.tlb.rar_per_payload);
    tlbs_[cpu]->invalidate(payload.invalidation());
    IPISIM_CHECK_HOOK(rar_action_done(cpu, slot));  // at the store's linearization point, as above
    co_await mem_.fetch_and(cpu, *pc.action[slot / kSlotsPerWord], ~byte_mask(slot));  // RAR_SUCCESS
    ++pc.stats.payloads;
    charge(cpu);
}

RarStats Rar::total_stats() const {
    RarStats t;
    for (const auto& pc : per_cpu_) {
        t.received += pc->stats.received;
        t.scans += pc->stats.scans;
        t.rescans += pc->stats.rescans;
        t.payloads += pc->stats.payloads;
        t.stolen += pc->stats.stolen;
    }
    return t;
}

}  // namespace ipisim::hw
