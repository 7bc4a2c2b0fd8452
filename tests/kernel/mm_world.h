// Test fixture for kernel/mm and kernel/tlbflush scenarios: a machine from machines/, the
// kernel, and its mm layer with a named flush protocol; helpers to run work on CPUs.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "kernel/mm/mm.h"
#include "support/kernel_world.h"

namespace ipisim::mmtest {

inline kernel::KernelConfig with_protocol(const std::string& protocol) {
    kernel::KernelConfig config;
    config.tlb_flush = protocol;
    return config;
}

// The kernel's own mm layer, with `protocol` as [kernel] tlb_flush.
struct MmWorld : test::KernelWorld {
    kernel::mm::Mm* const mm;
    explicit MmWorld(const std::string& machine, const std::string& protocol = "ipi")
        : KernelWorld(machine, with_protocol(protocol)), mm(&k->mm()) {}
    MmWorld(hw::MachineSpec machine, const std::string& protocol)
        : KernelWorld(std::move(machine), with_protocol(protocol)), mm(&k->mm()) {}
    // toy4, or `machine`, with a whole [kernel] configuration.
    explicit MmWorld(kernel::KernelConfig config) : KernelWorld("toy4", std::move(config)), mm(&k->mm()) {}
    MmWorld(const std::string& machine, kernel::KernelConfig config)
        : KernelWorld(machine, std::move(config)), mm(&k->mm()) {}
    hw::Cpu& cpu(hw::CpuId c) { return plat->cpu(c); }
};

// The page the shootdown scenarios map and flush.
inline constexpr uint64_t kVa = 0x7f0000001000ULL;

// Every CPU in `cpus` switches into `mm`, fills a translation of kVa, then computes `busy`
// (user work the flush IPIs interrupt) unless it is lazy (then it enters lazy TLB and idles).
inline void start_cpus(MmWorld& w, kernel::mm::MmStruct& mm, std::initializer_list<hw::CpuId> cpus, sim::Picos busy,
                       std::initializer_list<hw::CpuId> lazy = {}) {
    for (hw::CpuId c : cpus) {
        const bool is_lazy = std::find(lazy.begin(), lazy.end(), c) != lazy.end();
        w.k->run_on(c, [&w, &mm, busy, is_lazy](hw::Cpu& cpu) -> sim::Task<> {
            co_await w.mm->switch_mm_irqs_off(cpu, mm);
            w.mm->tlb(cpu.id()).fill(w.mm->loaded_pcid(cpu.id()), kVa, cpu.now());
            if (is_lazy) {
                co_await w.mm->enter_lazy_tlb(cpu);
            } else {
                co_await cpu.compute(busy);
            }
        });
    }
}

// flush_tlb_mm_range() of the one page at kVa (madvise's flush).
inline sim::Task<> flush_page(MmWorld& w, hw::Cpu& cpu, kernel::mm::MmStruct& mm) {
    co_await w.mm->flush_tlb_mm_range(cpu, mm, kVa, kVa + kernel::mm::PAGE_SIZE, kernel::mm::PAGE_SHIFT, false);
}

}  // namespace ipisim::mmtest
