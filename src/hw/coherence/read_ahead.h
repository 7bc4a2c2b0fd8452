// A loop of independent loads as an out-of-order core runs it: memory-level parallelism.
//
//   hw::ReadAhead ahead(mem, cpu, n, [&](size_t i) -> hw::SimVar& { return *flag[target[i]]; },
//                       predictor);
//   for (size_t i = 0; i < n; ++i) {
//       ahead.before(i);                         // the window reaches past entry i, or not
//       const uint64_t v = co_await mem.load(cpu, *flag[target[i]]);   // program order
//       const bool blocked = ...;                // entry i spun, or took a locked RMW
//       ahead.after(i, blocked);
//   }
//
// A kernel loop such as the fan-out's `for_each_cpu(cpu, mask) { x = per_cpu(v, cpu); ... }`
// loads one line per iteration, and the iterations do not depend on each other's data. A core
// does not wait for iteration i's miss before issuing iteration i+1's load: the branch that
// depends on the data is predicted, the younger iterations run ahead on the predicted path, and
// their misses are in flight together, up to the core's L1D fill buffers (Intel line fill
// buffers, AMD miss address buffers; `[coherence] fill_buffers`). The model: before entry i's
// access in program order, when the predicted path of entry i runs on to the next iteration,
// the lines of entries i+1, i+2, ... are read ahead (hw::Memory::prefetch) while fill buffers
// remain; each is then in this CPU's L1 from its arrival, until another CPU writes it (then the
// program-order access misses again and sees the new value: an x86 core whose early load was
// snooped before it retired replays it). Lines read ahead on a path that turns out wrong stay in
// the cache, as on real cores.
//
// What stops the window is the predicted path of the head entry:
//   * a locked RMW (LOCK CMPXCHG, XCHG): no younger load executes until it completes (Intel SDM
//     vol. 3A §8.2.2 "Reads or writes cannot be reordered with ... locked instructions", §8.1.2;
//     AMD APM vol. 2 §7.4.2: loads of later instructions are not issued before a locked
//     instruction's accesses complete);
//   * a spin (a cpu_relax loop on the entry): the predicted path is the loop itself.
// Whether the head's path holds one is data-dependent; a Bimodal predictor per CPU and loop
// (a 2-bit saturating counter of the loop's recent outcomes) predicts it, as a core's branch
// predictor would for a branch with no pattern. Loops whose every iteration takes a locked RMW
// (llist_add in the call-function fan-out) or executes a serializing instruction (INVLPG)
// get no window at all.
//
// Not modeled: the ROB limit (a window of fill_buffers iterations of these short bodies, tens of
// instructions each, is well inside Golden Cove's 512-entry ROB); SMT siblings sharing the
// core's fill buffers (each logical CPU has its own); RFOs of stores issued ahead (plain stores
// wait in the store buffer, store_buffer.h, without stalling the loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "hw/coherence/memory.h"

namespace ipisim::hw {

// A 2-bit saturating counter: the bimodal branch predictor of one branch (J. E. Smith, "A study
// of branch prediction strategies", ISCA 1981). Predicts `taken` once two outcomes in a row, or
// more of the recent ones, were taken; starts weakly not taken.
class Bimodal {
public:
    [[nodiscard]] bool predict_taken() const { return counter_ >= 2; }
    void update(bool taken) {
        if (taken && counter_ < 3) ++counter_;
        if (!taken && counter_ > 0) --counter_;
    }

private:
    uint8_t counter_ = 1;
};

// The out-of-order window over one pass of a loop of `n` independent loads (see the header).
// `var_of(i)` is entry i's variable; `blocks` predicts whether an entry's path stops the window
// (taken: it spins or takes a locked RMW).
template <class VarOf>
class ReadAhead {
public:
    ReadAhead(Memory& mem, CpuId cpu, size_t n, VarOf var_of, Bimodal& blocks)
        : mem_(mem), var_of_(std::move(var_of)), blocks_(blocks), n_(n), cpu_(cpu) {}

    // Before entry i's access in program order: if its predicted path runs on, the loads of
    // the entries after it are issued while fill buffers remain.
    void before(size_t i) {
        if (next_ <= i) next_ = i + 1;
        if (blocks_.predict_taken()) return;
        while (next_ < n_ && mem_.prefetch(cpu_, var_of_(next_))) ++next_;
    }
    // After entry i: whether its path stopped the window (trains the predictor).
    void after(size_t /*i*/, bool blocked) { blocks_.update(blocked); }

private:
    Memory& mem_;
    VarOf var_of_;
    Bimodal& blocks_;
    size_t n_;
    size_t next_ = 0;  // the first entry not read ahead yet
    CpuId cpu_;
};

}  // namespace ipisim::hw
