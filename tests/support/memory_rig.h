// Test support: one toy4 machine's engine and coherent memory, with variables v0, v1, ... each
// alone on its own line homed on node 0, v_i starting at initial[i]. `overrides` are
// machine-file values as for load_test_machine ("coherence.store_buffer=8"). The memory tests
// (loads, store buffers, read-ahead) build their rigs on it.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/machine.h"
#include "sim/engine.h"
#include "support/test_machine.h"

namespace ipisim::test {

struct MemoryRig {
    MemoryRig(const std::vector<std::string>& overrides, const std::vector<uint64_t>& initial)
        : m(load_test_machine("toy4", overrides)), mem(eng, m.topology, m.coherence) {
        for (size_t i = 0; i < initial.size(); ++i) {
            vars.push_back(&mem.new_aligned_var(fmt::format("v{}", i), 0, initial[i]));
        }
    }
    // {first, first + 1, ..., first + n - 1}
    static std::vector<uint64_t> counting(uint64_t first, size_t n) {
        std::vector<uint64_t> out(n);
        for (size_t i = 0; i < n; ++i) out[i] = first + i;
        return out;
    }
    hw::SimVar& v(size_t i) { return *vars[i]; }
    // Every variable's line as `cpu` left it after writing it last.
    void prime_all(hw::CpuId cpu) {
        for (hw::SimVar* x : vars) x->line().prime(cpu);
    }

    hw::MachineSpec m;
    sim::Engine eng;
    hw::Memory mem;
    std::vector<hw::SimVar*> vars;
};

}  // namespace ipisim::test
