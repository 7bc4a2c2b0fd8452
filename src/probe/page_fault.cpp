#include "probe/page_fault.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "probe/clock.h"
#include "probe/interrupts.h"
#include "probe/pinned_threads.h"

namespace ipisim::probe {

namespace {

constexpr size_t kRegionBytes = size_t{1} << 20;  // tlb_flush2's MEMSIZE

struct Mapping {
    char* base = nullptr;
    size_t bytes = 0;
    explicit Mapping(size_t n) : bytes(n) {
        void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error(fmt::format("mmap({} bytes): {}", n, std::strerror(errno)));
        base = static_cast<char*>(p);
        madvise(base, bytes, MADV_NOHUGEPAGE);  // 4 KiB faults, as in tlb_flush2's 1 MiB region
    }
    ~Mapping() { munmap(base, bytes); }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
};

void dontneed(char* page, size_t size) {
    if (madvise(page, size, MADV_DONTNEED) != 0) {
        throw std::runtime_error(fmt::format("madvise(MADV_DONTNEED): {}", std::strerror(errno)));
    }
}

// Sets the flag when the measuring side leaves, even by an exception, so the spinner stops.
struct StopOnExit {
    std::atomic<bool>& stop;
    ~StopOnExit() { stop.store(true, std::memory_order_release); }
};

}  // namespace

std::vector<double> anon_write_fault_ns(int cpu, uint64_t pages, const Effort& effort) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::vector<double> out;
    run_pinned({cpu}, [&](size_t) {
        for (int s = 0; s < effort.warmup_repeats + effort.repeats; ++s) {
            Mapping m(pages * page);
            volatile char* p = m.base;
            const uint64_t t0 = now_ns();
            for (uint64_t i = 0; i < pages; ++i) p[i * page] = 1;
            const uint64_t t1 = now_ns();
            if (s >= effort.warmup_repeats) out.push_back(static_cast<double>(t1 - t0) / static_cast<double>(pages));
        }
    });
    return out;
}

DontneedRefault dontneed_refault(int cpu, std::optional<int> sibling_cpu, uint64_t cycles, const Effort& effort) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    DontneedRefault out;
    std::atomic<bool> running{!sibling_cpu.has_value()};
    std::atomic<bool> stop{false};
    std::vector<int> cpus = {cpu};
    if (sibling_cpu) cpus.push_back(*sibling_cpu);
    run_pinned(cpus, [&](size_t side) {
        if (side == 1) {
            running.store(true, std::memory_order_release);
            while (!stop.load(std::memory_order_acquire)) {
            }
            return;
        }
        const StopOnExit stopper{stop};
        while (!running.load(std::memory_order_acquire)) {
        }
        // will-it-scale tlb_flush2's loop: over a fresh 1 MiB region, page by page, the write
        // that faults a page in, the madvise, and the read-back that checks it is gone (a read
        // fault mapping the zero page); a new region after each pass, as tlb_flush2 maps and
        // unmaps it, so every write finds a page never mapped (a write to the zero page would be
        // a copy-on-write fault). The model runs the same loop (cli/probe_fit.cpp).
        const size_t pages = kRegionBytes / page;
        uint64_t nonzero = 0;
        // Calls step(page address) `cycles` times, one page of a fresh region each.
        const auto over_pages = [&](const auto& step) {
            for (uint64_t k = 0; k < cycles;) {
                Mapping m(pages * page);
                for (size_t i = 0; i < pages && k < cycles; ++i, ++k) step(m.base + i * page);
            }
        };
        const auto batch = [&] {
            over_pages([&](char* q) {
                volatile char* v = q;
                v[0] = 1;
                dontneed(q, page);
                nonzero += v[0] != 0 ? 1 : 0;
            });
        };
        for (int s = 0; s < effort.warmup_repeats; ++s) batch();
        const std::optional<InterruptCounts> before = read_interrupts();
        for (int s = 0; s < effort.repeats; ++s) {
            const uint64_t t0 = now_ns();
            batch();
            out.cycle_ns.push_back(static_cast<double>(now_ns() - t0) / static_cast<double>(cycles));
        }
        const std::optional<InterruptCounts> after = read_interrupts();
        // The split, timed per call (outside the interrupt window: the counts are per cycle above).
        for (int s = 0; s < effort.repeats; ++s) {
            uint64_t in_madvise = 0;
            uint64_t in_fault = 0;
            uint64_t in_read = 0;
            over_pages([&](char* q) {
                volatile char* v = q;
                const uint64_t t0 = now_ns();
                v[0] = 1;
                const uint64_t t1 = now_ns();
                dontneed(q, page);
                const uint64_t t2 = now_ns();
                nonzero += v[0] != 0 ? 1 : 0;
                in_read += now_ns() - t2;
                in_madvise += t2 - t1;
                in_fault += t1 - t0;
            });
            out.refault_ns.push_back(static_cast<double>(in_fault) / static_cast<double>(cycles));
            out.madvise_ns.push_back(static_cast<double>(in_madvise) / static_cast<double>(cycles));
            out.read_back_ns.push_back(static_cast<double>(in_read) / static_cast<double>(cycles));
        }
        if (nonzero != 0) throw std::runtime_error("a page read back non-zero after MADV_DONTNEED");
        if (before && after) {
            const auto ops = static_cast<double>(cycles * static_cast<uint64_t>(effort.repeats));
            if (auto d = delta(*before, *after, "TLB")) out.tlb_per_op = static_cast<double>(*d) / ops;
            if (auto d = delta(*before, *after, "CAL")) out.cal_per_op = static_cast<double>(*d) / ops;
        }
    });
    return out;
}

}  // namespace ipisim::probe
