// AMD INVLPGB / TLBSYNC (docs/mechanisms.md 2.8): a machine-wide broadcast invalidation unit.
//
//   hw::Invlpgb unit(eng, spec, tlbs);                 // tlbs[c] = CPU c's TLB
//   co_await unit.invlpgb(cpu, hw::InvlpgbOp::user_nr(pcid, addr, nr, false));
//   co_await unit.tlbsync(cpu);                        // all of cpu's INVLPGBs completed
//
// Timing (every number from the machine file; d = topology distance, D = intc.delivery):
//   * INVLPGB: the issuer stalls tlb.invlpgb_issue, then the instruction retires (weakly
//     ordered, asynchronous). The broadcast leaves at retirement, t_b.
//   * It reaches CPU c — the issuer included — at t_b + D[d(issuer, c)], the fabric's one-way
//     latency (the same message fabric as interrupts, without its capacity limit), and is
//     applied to c's TLB at that instant. No software runs on c; c loses no time.
//   * CPU c acknowledges back to the issuer over the same distance: the INVLPGB is complete
//     at max over c of (t_b + 2 D[d(issuer, c)]).
//   * TLBSYNC issued at t_s returns at max(t_s + tlb.tlbsync, completion of the issuer's last
//     INVLPGB): tlbsync [A] is the instruction's own latency (its sync round trip), and it
//     cannot return before the issuer's INVLPGBs have completed. It is an uninterruptible
//     stall. Only INVLPGBs issued by this CPU count.
// Operands (asm/tlb.h): VA valid with 1..invlpg_count_max pages of 4 KiB or 2 MiB stride;
// PCID valid; include global. Neither VA nor PCID: all non-global translations of all PCIDs.
// An INVLPGB with more pages than invlpgb_count_max is a std::logic_error (the kernel chunks).
#pragma once

#include <cstdint>
#include <vector>

#include "hw/cpu/cpu.h"
#include "hw/machine.h"
#include "hw/tlb/tlb.h"
#include "sim/engine.h"
#include "sim/task.h"

namespace ipisim::hw {

struct InvlpgbOp {
    bool va_valid = false;
    bool pcid_valid = false;
    bool include_global = false;
    bool pmd_stride = false;  // stride 2 MiB instead of 4 KiB
    Pcid pcid = 0;
    uint64_t addr = 0;
    uint32_t nr_pages = 1;

    // The kernel helpers' operands (asm/tlb.h).
    static InvlpgbOp user_nr(Pcid pcid, uint64_t addr, uint32_t nr, bool pmd_stride);  // ..._nosync
    static InvlpgbOp single_pcid(Pcid pcid);                   // invlpgb_flush_single_pcid_nosync
    static InvlpgbOp kernel_addr(uint64_t addr, uint32_t nr);  // invlpgb_flush_addr_nosync
    static InvlpgbOp all();                                    // invlpgb_flush_all
    static InvlpgbOp all_nonglobals();                         // invlpgb_flush_all_nonglobals

    // What it removes from each TLB.
    [[nodiscard]] Invalidation invalidation() const;
};

struct InvlpgbStats {
    uint64_t invlpgb = 0;      // instructions issued
    uint64_t pages = 0;        // pages covered by the VA-valid ones
    uint64_t applied = 0;      // (instruction, CPU) invalidations applied
    uint64_t tlbsync = 0;      // TLBSYNCs executed
    sim::Picos tlbsync_stall;  // total time issuers stalled in TLBSYNC
};

class Invlpgb {
public:
    // tlbs[c] is CPU c's TLB; one per CPU of the machine.
    Invlpgb(sim::Engine& eng, const MachineSpec& spec, std::vector<Tlb*> tlbs);
    Invlpgb(const Invlpgb&) = delete;
    Invlpgb& operator=(const Invlpgb&) = delete;

    sim::Task<> invlpgb(Cpu& issuer, InvlpgbOp op);
    sim::Task<> tlbsync(Cpu& issuer);

    // When every INVLPGB `cpu` issued so far is complete (zero if it issued none).
    [[nodiscard]] sim::Picos completion_time(CpuId cpu) const { return completion_.at(cpu); }
    [[nodiscard]] const InvlpgbStats& stats() const { return stats_; }

private:
    struct Delivery {
        InvlpgbOp op;
        CpuId target = 0;
    };
    static void on_deliver(void* obj, uint32_t slot);
    void validate(const InvlpgbOp& op) const;

    sim::Engine& eng_;
    const MachineSpec& spec_;
    std::vector<Tlb*> tlbs_;
    std::vector<sim::Picos> completion_;
    std::vector<Delivery> deliveries_;  // in flight, by slot
    std::vector<uint32_t> free_slots_;
    InvlpgbStats stats_;
};

}  // namespace ipisim::hw
