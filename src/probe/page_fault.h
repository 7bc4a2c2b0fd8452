// Anonymous page-fault cost and the MADV_DONTNEED + refault cycle of one page (the kernel work
// of one tlb_flush2 iteration, docs/mechanisms.md §5), on one thread, alone or with a second
// thread of the process spinning on another CPU (then the mm is live on that CPU and every
// zap is a TLB shootdown to it: /proc/interrupts "TLB" per operation shows it).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "probe/effort.h"

namespace ipisim::probe {

// ns per page to write-fault every page of a fresh `pages`-page anonymous private mapping
// (4 KiB pages: MADV_NOHUGEPAGE), one sample per fresh mapping; munmap is not timed.
std::vector<double> anon_write_fault_ns(int cpu, uint64_t pages, const Effort& effort);

struct DontneedRefault {
    // Per cycle: write fault + madvise(MADV_DONTNEED) of one page + the read-back (a zero-page
    // read fault), tlb_flush2's loop body.
    std::vector<double> cycle_ns;
    std::vector<double> madvise_ns;    // the madvise call alone (timed per call: includes a clock read)
    std::vector<double> refault_ns;    // the write that faults the page back (same)
    std::vector<double> read_back_ns;  // the read that checks it is gone (same)
    std::optional<double> tlb_per_op;  // TLB-shootdown interrupts received (all CPUs) per cycle
    std::optional<double> cal_per_op;  // function-call interrupts per cycle
};

// On `cpu`; with `sibling_cpu`, a second thread of the process spins there throughout.
DontneedRefault dontneed_refault(int cpu, std::optional<int> sibling_cpu, uint64_t cycles, const Effort& effort);

}  // namespace ipisim::probe
