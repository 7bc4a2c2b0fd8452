// call_single_data_t: the cross-call descriptor. Its flags word and its func/info pointers sit
// on one cache line (the struct is 32 bytes, aligned to its size), so filling it, unlocking it
// and spinning on it move that line between sender and target.
#pragma once

#include <cstdint>
#include <functional>

#include "hw/coherence/sim_var.h"
#include "hw/cpu/cpu.h"
#include "sim/task.h"

namespace ipisim::kernel {

// include/linux/smp_types.h
inline constexpr uint64_t CSD_FLAG_LOCK = 0x01;
inline constexpr uint64_t CSD_TYPE_ASYNC = 0x00;
inline constexpr uint64_t CSD_TYPE_SYNC = 0x10;
inline constexpr uint64_t CSD_FLAG_TYPE_MASK = 0xF0;

// A function run on another CPU: func(info) of the kernel, with `info` captured.
using SmpCallFunc = std::function<sim::Task<>(hw::Cpu& cpu)>;
// A condition evaluated by the sender for a target (e.g. should_flush_tlb); may read remote
// state, so it is a Task that can cost time.
using SmpCondFunc = std::function<sim::Task<bool>(hw::Cpu& self, hw::CpuId target)>;

struct Csd {
    hw::SimVar* flags = nullptr;  // u_flags
    hw::SimVar* func = nullptr;   // func + info, same line
    SmpCallFunc fn;
    hw::CpuId src = 0;
    hw::CpuId dst = 0;
};

}  // namespace ipisim::kernel
