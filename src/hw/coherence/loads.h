// Independent loads that one CPU issues together, as one wait (memory-level parallelism):
//   const auto [a, b, c] = co_await mem.loads(cpu, &x, &y, &z);   // a nullptr is skipped (0)
// Kernel code often reads several variables whose addresses do not depend on each other's
// values, one after the other: `this_cpu_read(cpu_tlbstate.loaded_mm)`, `..._asid` and
// `cpu_tlbstate_shared.is_lazy` at the top of flush_tlb_func(). An out-of-order core issues
// them in the same few cycles, past the predicted branches between them, and their latencies
// overlap: the group takes as long as its slowest load, not the sum (two loads a cycle from
// Sunny Cove on, three from Golden Cove: Intel Architecture Day 2021). Each load takes effect
// when the group is awaited, in argument order (the value is read, the line's read reserved:
// coherence_protocol.h), exactly as the same loads awaited one by one at that instant would;
// the CPU then waits, masked, for the longest of them. A group of hits whose wait ends before
// anything else happens ends in place (sim::Engine::advance_inline), as one hit does.
//
// Use it only where the program issues the loads together: no locked RMW, fence or
// serializing instruction (a CR3 write, INVLPG) between them in program order, and no address
// that needs another of the group's values. A load after such a barrier is awaited on its own.
#pragma once

#include <algorithm>
#include <array>
#include <coroutine>
#include <cstddef>
#include <cstdint>

#include "hw/coherence/access.h"
#include "hw/coherence/coherence_protocol.h"
#include "hw/coherence/sim_var.h"
#include "hw/coherence/store_buffer.h"
#include "sim/engine.h"
#include "sim/process.h"

namespace ipisim::hw {

template <size_t N>
class [[nodiscard]] LoadsAccess {
public:
    LoadsAccess(sim::Engine& eng, CoherenceProtocol& protocol, StoreBuffers* sb, CpuId cpu,
                const std::array<SimVar*, N>& vars)
        : eng_(eng), protocol_(protocol), sb_(sb), vars_(vars), cpu_(cpu) {}

    IPISIM_INLINE bool await_ready() {
        bool all_hits = true;
        for (size_t i = 0; i < N; ++i) {
            SimVar* v = vars_[i];
            if (v == nullptr) continue;
            const LoadTaken t = take_load(protocol_, sb_, cpu_, *v);  // as a load awaited alone now
            values_[i] = t.value;
            wait_ = std::max(wait_, t.wait);
            all_hits = all_hits && t.hit;
        }
        return access_wait_ends_at_once(eng_, wait_, all_hits, proc_, masked_);
    }
    IPISIM_INLINE void await_suspend(std::coroutine_handle<>) {
        const uint32_t epoch = proc_->begin_wait(nullptr);
        eng_.schedule_in(wait_, &sim::Process::on_wake_event, proc_, epoch, proc_->id());
    }
    IPISIM_INLINE std::array<uint64_t, N> await_resume() {
        if (masked_) proc_->unmask();  // pending interrupts stay pending
        return values_;
    }

private:
    sim::Engine& eng_;
    CoherenceProtocol& protocol_;
    StoreBuffers* sb_;  // nullptr: the machine has none
    std::array<SimVar*, N> vars_;
    std::array<uint64_t, N> values_{};
    sim::Picos wait_;
    sim::Process* proc_ = nullptr;
    CpuId cpu_;
    bool masked_ = false;
};

}  // namespace ipisim::hw
