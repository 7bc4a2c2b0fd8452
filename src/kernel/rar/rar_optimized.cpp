// smp_call_rar_many() with seed 000's patch ("only send RAR to CPUs not already processing
// RARs"), the part after PENDING was written into every target's action vector: a per-CPU
// rar_pending (-1 = nobody) names the sender that sent the RAR IPI to that CPU and has not yet
// seen its own request done there. A sender claims each target with get_rar_pending() (read,
// then cmpxchg -1 -> this_cpu), sends the RAR IPI only to the targets it claimed, and waits on
// every target; wait_for_action_done() gives up on a still-PENDING byte once the target's
// rar_pending reads -1, and the do/while loops back to claim and send again. Only the claimer
// resets rar_pending (release_rar_pending after SUCCESS). Targets are claimed and waited on in
// the placement's order (the patch: CPU number, for_each_cpu).
//
// Placement [A]: rar_pending is a plain DEFINE_PER_CPU int, not on the (aligned, full) action
// vector line; its neighbours in the target's per-CPU area are unknown, so it gets a line of
// its own, homed on the target's node and first owned by the target (per-CPU init).
//
// Spinning on two lines: the loop in wait_for_action_done() reads the action byte and
// rar_pending alternately. The spinner sleeps only while it still holds both lines (a write
// reserved since its loads invalidated its copy: the next poll misses), its byte is still
// PENDING (a sender waiting on itself: its own microcode's SUCCESS leaves the line held, and a
// sleep after it would never end, a lost wake-up the checker found) and rar_pending still names
// a claimer (a copy read ahead may say -1 before this call's first poll has loaded it: another
// lost wake-up the checker found); writes to the action line wake it through the line, and
// every write to rar_pending (claims, failed cmpxchgs included, and releases) wakes the
// spinners of that target, who all poll it.
#include <fmt/format.h>

#include "hw/check_hooks.h"
#include "hw/observer.h"
#include "kernel/rar/smp_call_rar.h"

namespace ipisim::kernel {

namespace {

using hw::Cpu;
using hw::CpuId;
using hw::CpuMask;

constexpr uint64_t kNoRarPending = ~0ULL;  // -1

class RarPendingSend final : public RarSendPolicy {
public:
    explicit RarPendingSend(bool loop_back) : loop_back_(loop_back) {}

    void attach(SmpCallRar& r) override {
        RarSendPolicy::attach(r);
        hw::Platform& p = r.platform();
        for (CpuId c = 0; c < p.nr_cpus(); ++c) {
            hw::SimVar& v =
                r.mem().new_aligned_var(fmt::format("rar_pending[{}]", c), p.topology().node_of(c), kNoRarPending);
            v.line().prime(c);
            rar_pending_.push_back(&v);
            apic_cpu_mask_.emplace_back(p.nr_cpus());
        }
        pass_.resize(p.nr_cpus());
        claim_predictor_.resize(p.nr_cpus());
    }

    sim::Task<> send_and_wait(Cpu& self, uint32_t payload_nr, CpuMask& dest_mask,
                              const std::vector<CpuId>& order) override {
        RarCallStats& stats = rar().stats();
        CpuMask& apic_mask = apic_cpu_mask_[self.id()];
        apic_mask.clear_all();
        bool first = true;
        std::vector<CpuId>& pass = pass_[self.id()];
        do {
            if (!first) ++stats.loop_backs;
            first = false;
            pass.clear();
            for (const CpuId cpu : order) {
                if (dest_mask.test(cpu)) pass.push_back(cpu);
            }
            // Track the CPUs that have no RAR pending (yet). The loads of rar_pending run ahead
            // (read_ahead.h) unless the claim, a locked cmpxchg, is predicted.
            hw::ReadAhead claims(
                rar().mem(), self.id(), pass.size(),
                [this, &pass](size_t i) -> hw::SimVar& { return *rar_pending_[pass[i]]; }, claim_predictor_[self.id()]);
            for (size_t i = 0; i < pass.size(); ++i) {
                claims.before(i);
                const Claim c = co_await get_rar_pending(self, pass[i]);
                if (c.mine) apic_mask.set(pass[i]);
                claims.after(i, c.tried);
            }
            // Send a message to the CPUs not processing RARs yet.
            co_await rar().native_send_rar_ipi(self, apic_mask);

            // Each iteration loads two lines, the target's action byte and (release_rar_pending)
            // its rar_pending: loads 2i and 2i + 1 of the pass, all independent of each other.
            hw::ReadAhead waits(
                rar().mem(), self.id(), 2 * pass.size(),
                [this, payload_nr, &pass](size_t j) -> hw::SimVar& {
                    const CpuId target = pass[j / 2];
                    return j % 2 == 0 ? rar().hardware().action_word(target, payload_nr) : *rar_pending_[target];
                },
                rar().wait_predictor(self.id()));
            for (size_t i = 0; i < pass.size(); ++i) {
                const CpuId cpu = pass[i];
                waits.before(2 * i);
                bool spun = false;
                const uint8_t status = co_await wait_for_action_done(self, payload_nr, cpu, spun);
                waits.after(2 * i, spun);
                if (status == hw::kRarSuccess) {
                    waits.before(2 * i + 1);
                    co_await release_rar_pending(self, cpu);
                    dest_mask.clear(cpu);
                    apic_mask.clear(cpu);
                }
            }
        } while (loop_back_ && !dest_mask.empty());
    }

private:
    // get_rar_pending(): is this_cpu the one that needs to send a RAR to target_cpu (mine)?
    // `tried`: the cmpxchg ran (rar_pending read -1).
    struct Claim {
        bool tried = false;
        bool mine = false;
    };
    sim::Task<Claim> get_rar_pending(Cpu& self, CpuId target_cpu) {
        RarCallStats& stats = rar().stats();
        hw::SimVar& pending = *rar_pending_[target_cpu];
        const uint64_t owner = co_await rar().mem().load(self.id(), pending);
        if (owner != kNoRarPending) {
            ++stats.claims_lost;  // another CPU is flushing this CPU already
            co_return Claim{};
        }
        const uint64_t old = co_await rar().mem().cmpxchg(self.id(), pending, kNoRarPending, self.id());
        wake_action_spinners(target_cpu);
        if (old != kNoRarPending) {
            ++stats.claims_lost;
            co_return Claim{true, false};
        }
        ++stats.claims;
        co_return Claim{true, true};
    }

    // If this_cpu sent the RAR to target_cpu, clear rar_pending.
    sim::Task<> release_rar_pending(Cpu& self, CpuId target_cpu) {
        hw::SimVar& pending = *rar_pending_[target_cpu];
        const uint64_t owner = co_await rar().mem().load(self.id(), pending);
        if (owner == self.id()) {
            // The write wakes the senders polling it, asleep on the target's action line (see
            // wake_action_spinners), when it becomes visible.
            co_await rar().mem().store(self.id(), pending, kNoRarPending,
                                       rar().hardware().action_word(target_cpu, 0).line().written());
        }
    }

    // The patched wait_for_action_done(): returns the status, PENDING when the target's
    // rar_pending reads -1 while the request is still unprocessed.
    // `spun`: whether the first look found the byte PENDING.
    sim::Task<uint8_t> wait_for_action_done(Cpu& self, uint32_t payload_nr, CpuId target_cpu, bool& spun) {
        static const uint32_t label = hw::profile_label("wait_for_action_done", hw::LabelCategory::tlb_invalidation);
        auto scope = self.function(label, hw::Activity::spin);
        RarCallStats& stats = rar().stats();
        hw::Memory& mem = rar().mem();
        const sim::Picos start = self.now();
        const CpuId me = self.id();
        hw::SimVar& action = rar().hardware().action_word(target_cpu, payload_nr);
        hw::SimVar& pending = *rar_pending_[target_cpu];
        uint8_t status = hw::Rar::action_byte(co_await mem.load(me, action), payload_nr);
        IPISIM_CHECK_HOOK(wait_begin(me, action));
        spun = status == hw::kRarPending;
        while (status == hw::kRarPending) {
            // cpu_relax(): nothing changes until one of the two lines is written. A write by
            // another CPU takes the line away; the target's own microcode does not, so when the
            // target is this CPU (v4 keeps self in the mask) its SUCCESS may already be there,
            // written between the poll of the byte and this point: the byte is looked at again
            // (a simulator check, no access) before sleeping. So is rar_pending: on the first
            // turn this call has not loaded it yet, and a copy held from earlier (the pass reads
            // it ahead) may already say -1, which the next poll would see at once.
            const bool unchanged =
                hw::Rar::action_byte(action.peek(), payload_nr) == hw::kRarPending && pending.peek() != kNoRarPending;
            if (unchanged && action.line().holds(me) && pending.line().holds(me)) {
                const sim::Wake w = co_await mem.wait_for_write(action);
                if (w.interrupted()) co_await self.take_irq(w.irq);
            }
            // The two loads do not depend on each other: the core has both misses in flight
            // (hw/coherence/read_ahead.h).
            mem.prefetch(me, pending);
            status = hw::Rar::action_byte(co_await mem.load(me, action), payload_nr);
            const uint64_t owner = co_await mem.load(me, pending);
            // Target CPU is not processing RARs right now.
            if (owner == kNoRarPending) break;
        }
        IPISIM_CHECK_HOOK(wait_end(me));
        if (status == hw::kRarPending) ++stats.unprocessed;
        stats.action_spin += self.now() - start;
        hw::record_latency("wait_for_action_done", self.now() - start);
        co_return status;
    }

    // A write to rar_pending[target] invalidates the copy of every sender polling it in
    // wait_for_action_done(); they sleep on the target's action line (see the file comment).
    void wake_action_spinners(CpuId target_cpu) {
        rar().hardware().action_word(target_cpu, 0).line().written().notify_all();
    }

    bool loop_back_;
    std::vector<hw::SimVar*> rar_pending_;      // DEFINE_PER_CPU(int, rar_pending) = -1
    std::vector<CpuMask> apic_cpu_mask_;        // DEFINE_PER_CPU(struct cpumask, apic_cpu_mask)
    std::vector<std::vector<CpuId>> pass_;      // per CPU: the targets of its current pass
    std::vector<hw::Bimodal> claim_predictor_;  // per CPU: "claim this target?" (a locked cmpxchg)
};

}  // namespace

std::unique_ptr<RarSendPolicy> rar_pending_send() {
    return std::make_unique<RarPendingSend>(/*loop_back=*/true);
}

std::unique_ptr<RarSendPolicy> rar_pending_send_noloop() {
    return std::make_unique<RarPendingSend>(/*loop_back=*/false);
}

}  // namespace ipisim::kernel
