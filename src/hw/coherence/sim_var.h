// A simulated shared variable: a 64-bit value at a byte offset of a cache line. Several
// variables may share a line (and so false-share it). Accesses go through hw::Memory, which
// charges their coherence cost; peek()/poke() are for setup, tests and checkers only.
#pragma once

#include <cstdint>

#include "hw/coherence/cache_line.h"

namespace ipisim::hw {

class SimVar {
public:
    SimVar(CacheLine& line, uint32_t offset, uint64_t initial) : line_(&line), offset_(offset), value_(initial) {}
    SimVar(const SimVar&) = delete;
    SimVar& operator=(const SimVar&) = delete;

    [[nodiscard]] CacheLine& line() const { return *line_; }
    [[nodiscard]] uint32_t offset() const { return offset_; }

    // The value after every access reserved so far (accesses take effect, in line order, when
    // they are reserved; see coherence_protocol.h). No cost, no coherence effect.
    [[nodiscard]] uint64_t peek() const { return value_; }
    // Setup only: sets the value without cost and without waking spinners.
    void poke(uint64_t v) { value_ = v; }

private:
    friend class Memory;
    friend class AccessBase;
    friend class StoreBuffers;
    CacheLine* line_;
    uint32_t offset_;
    uint64_t value_;
};

}  // namespace ipisim::hw
