// will-it-scale tlb_flush2 (docs/mechanisms.md §5): every task loops forever over a fresh 1 MiB
// anonymous private mapping: for each of its 256 pages, write one byte (anonymous write fault:
// a zeroed page, into the LRU batch), madvise(MADV_DONTNEED) the page (zap, free, 1-page TLB
// flush), read the byte back (read fault: the zero page), count one iteration; then munmap the
// region (full flush, page tables freed) and mmap a new one. Each iteration also translates the
// program's own pages (its text, libc's madvise(), its stack, its counter: kTextVa and after), so
// a flush of the whole mm (munmap's, or a zap's while another thread's is open,
// kernel/mm/mmu_gather.cpp) costs their page walks afterwards.
//
// threads: tasks share one mm (tlb_flush2_threads: every flush is a shootdown to the other
// tasks' CPUs); processes: one mm each (every flush is local). Task i is bound to CPU i, which
// with the machine's smt_last numbering is one task per core first, then the SMT siblings.
// will-it-scale starts every task at once (the start pipe) and discards its first 6 s
// (main.c: WARMUP_ITERATIONS); a simulated window cannot reach that far, and the start's 60
// simultaneous mmap()s convoy on mmap_lock for about 6 ms at 60 threads. So by default
// (start = "steady") each task's first region is mapped before time 0 (Mm::mmap_before_start)
// and the task begins at a page drawn uniformly from the seed: the tasks' munmap/mmap pairs are
// spread over their 256-page cycles, as in the measured steady state [A: uniform phases].
// start = "together" runs the real start instead. Either way each task first waits a uniform
// 0-1 us jitter drawn from the seed (the wake-up from the start pipe). The tasks are scheduler
// threads (kernel/sched), one bound to each CPU; IRQs preempt them, and one that waits for
// mmap_lock or a VMA's lock sleeps (kernel/mm/rwsem.h): its CPU switches to the idle task,
// keeps the mm lazily and idles under the cpuidle governor until try_to_wake_up() brings the
// task back. Each CPU's ASID cursor starts where an unknown history of other processes left it
// (Mm::set_asid_history, drawn from the seed), so the tasks' mm has a different ASID on
// different CPUs. loops_per_sec = iterations summed over tasks in the measurement window after
// the warm-up, divided by its length (main.c prints that sum averaged over 1 s samples). The
// flush protocol, the madvise drain and the locks of faults and madvise are the kernel's
// ([kernel] tlb_flush, madvise_lru_add_drain, fault_lock, madvise_lock). The threads' regions
// lie next to each other and merge into one VMA (kernel/mm/vma.cpp).
#include <fmt/format.h>

#include <initializer_list>
#include <vector>

#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"
#include "kernel/mm/sched_link.h"
#include "kernel/rar/smp_call_rar.h"
#include "kernel/sched/sched.h"
#include "kernel/tlbflush/latr.h"
#include "sim/registry.h"
#include "sim/rng.h"
#include "workload/bounds.h"
#include "workload/workload.h"

namespace ipisim::workload {

namespace {

using kernel::mm::MmStruct;
using kernel::mm::PAGE_SIZE;

constexpr uint64_t kRegion = 1ULL << 20;  // MEMSIZE: 1 MiB
constexpr uint64_t kPages = kRegion / PAGE_SIZE;

// The loop's own pages, each translated every iteration [A: one page each]: testcase()'s text,
// libc's madvise() wrapper, the task's stack (the call's return address) and its iterations
// counter (main.c's shared results area). Present before time 0 (Mm::populate_before_start),
// away from the regions, which lie just below mmap_base; a flush of the mm's whole PCID (a nested zap's,
// kernel/mm/mmu_gather.cpp, or munmap's) makes each a TLB miss, a page walk of
// tlb.refill_per_entry.
constexpr uint64_t kTextVa = 0x401000;
constexpr uint64_t kLibcMadviseVa = 0x7f7000100000;
constexpr uint64_t kResultsVa = 0x7f7800000000;
constexpr uint64_t kStackTop = 0x7ffc00000000;

// Task i's stack page: 8 MiB below task i - 1's.
constexpr uint64_t stack_page(uint32_t task) {
    return kStackTop - uint64_t{task} * (8ULL << 20);
}

// Where a task begins under start = "steady": its region mapped before time 0 (addr 0: none,
// it begins with an mmap) and the page of it to touch first.
struct Resume {
    uint64_t addr = 0;
    uint64_t page = 0;
};

enum class Mode : uint8_t { threads, processes };
enum class Start : uint8_t { steady, together };

struct Params {
    int64_t threads = 0;
    Mode mode = Mode::threads;
    Start start = Start::steady;
    sim::Picos warmup;
    sim::Picos measure;
};

struct Metrics {
    double loops_per_sec = 0;
    uint64_t loops = 0;
    double loops_per_task_per_sec = 0;
    double tlb_invalidation_share = 0;
    double lru_lock_share = 0;
    double ipis_per_loop = 0;
    double rar_ipis_per_loop = 0;
    double rar_loop_backs_per_loop = 0;
    double rar_unprocessed_per_loop = 0;
    double latr_lazy_per_loop = 0;
    double latr_fallbacks_per_loop = 0;
    double latr_applied_at_tick_per_loop = 0;
    double latr_applied_at_switch_per_loop = 0;
    double irqs_per_loop = 0;
    double irqs_per_sec = 0;
    double user_share = 0;
    double sys_share = 0;
    double idle_share = 0;
    double coalesced_share = 0;
    double lru_lock_rounds_per_loop = 0;
    double vma_lock_fallbacks_per_loop = 0;
    double lock_sleeps_per_loop = 0;
    double nested_flush_share = 0;
    uint64_t stale_tlb_hits = 0;
};

// TLB invalidation time: labels the flush protocols tag as such, and those of the cross-call
// layer and IPI send loops they use (here every cross call and IPI is a flush).
bool is_flush_label(const std::string& n) {
    const hw::LabelCategory c = hw::profile_label_category(hw::profile_label(n));
    return c == hw::LabelCategory::tlb_invalidation || c == hw::LabelCategory::cross_call ||
           c == hw::LabelCategory::ipi_send;
}

bool is_lru_label(const std::string& n) {
    return n.find("lru_lock") != std::string::npos;
}

// CPU-time shares over the task CPUs 0..n-1 (always busy) in the measurement window: the TLB
// invalidation paths on both sides (flush functions, and interrupt time) and the LRU lock
// (spinning for it or holding it).
void time_shares(kernel::Kernel& k, uint32_t n, sim::Picos window, Metrics& m) {
    double flush_t = 0;
    double lru_t = 0;
    for (hw::CpuId c = 0; c < n; ++c) {
        flush_t +=
            static_cast<double>(k.cpu_time(c, [](const std::string& label, hw::Activity act) {
                                     return !is_lru_label(label) && (is_flush_label(label) || act == hw::Activity::irq);
                                 }).count());
        lru_t += static_cast<double>(
            k.cpu_time(c, [](const std::string& label, hw::Activity) { return is_lru_label(label); }).count());
    }
    const double cpu_time = static_cast<double>(window.count()) * n;
    m.tlb_invalidation_share = flush_t / cpu_time;
    m.lru_lock_share = lru_t / cpu_time;
    // The split lkp-tests reports from /proc/stat: user, system (kernel code, interrupts and
    // kernel spin-waits) and idle, over the task CPUs.
    auto share_of = [&](std::initializer_list<hw::Activity> acts) {
        double t = 0;
        for (hw::CpuId c = 0; c < n; ++c) {
            hw::CpuProfile& prof = k.platform().cpu(c).profile();
            prof.settle(k.engine().now());
            for (hw::Activity a : acts) t += static_cast<double>(prof.time_in(a).count());
        }
        return t / cpu_time;
    };
    m.user_share = share_of({hw::Activity::user});
    m.sys_share = share_of({hw::Activity::kernel, hw::Activity::irq, hw::Activity::spin});
    m.idle_share = share_of({hw::Activity::idle});
}

double per(uint64_t x, uint64_t total) {
    return total ? static_cast<double>(x) / static_cast<double>(total) : 0.0;
}

class TlbFlush2 : public SchemaWorkload<TlbFlush2, Params, Metrics> {
public:
    static const config::Schema<Params>& params_schema() {
        static const auto s =
            config::Schema<Params>("workload.tlb_flush2", "will-it-scale tlb_flush2 (docs/mechanisms.md §5)")
                .param("threads", &Params::threads, "tasks, task i bound to CPU i")
                .at_least(1)
                .choice("mode", &Params::mode, {{"threads", Mode::threads}, {"processes", Mode::processes}},
                        "the tasks share one mm (tlb_flush2_threads) or have one each (tlb_flush2_processes)")
                .def(Mode::threads)
                .choice("start", &Params::start, {{"steady", Start::steady}, {"together", Start::together}},
                        "steady: every task's region is mapped before time 0 and it begins at a page drawn "
                        "uniformly from the run's seed (the phase mix will-it-scale's 6 s warm-up leaves); "
                        "together: every task starts with its mmap at time 0, as from the start pipe")
                .def(Start::steady)
                .param("warmup", &Params::warmup, "simulated time before the measurement window")
                .at_most(kMaxSimulatedPicos)
                .param("measure", &Params::measure, "length of the measurement window")
                .at_most(kMaxSimulatedPicos)
                .check([](const Params& p) { return p.measure == sim::Picos::zero() ? "must be positive" : ""; });
        return s;
    }
    static const config::Schema<Metrics>& metrics_schema() {
        static const auto s =
            config::Schema<Metrics>("workload.tlb_flush2.metrics", "")
                .param("loops_per_sec", &Metrics::loops_per_sec, "iterations of all tasks per second of the window")
                .unit("1/s")
                .param("loops", &Metrics::loops, "iterations of all tasks in the window")
                .param("loops_per_task_per_sec", &Metrics::loops_per_task_per_sec,
                       "loops_per_sec divided by the number of tasks (will-it-scale's per-task figure)")
                .unit("1/s")
                .param("tlb_invalidation_share", &Metrics::tlb_invalidation_share,
                       "share of the task CPUs' time in TLB invalidation (flush paths, IPI handling)")
                .param("lru_lock_share", &Metrics::lru_lock_share,
                       "share of their time spinning for or holding "
                       "the LRU lock")
                .param("ipis_per_loop", &Metrics::ipis_per_loop, "cross-call IPIs sent per iteration")
                .param("rar_ipis_per_loop", &Metrics::rar_ipis_per_loop, "RAR messages delivered per iteration")
                .param("rar_loop_backs_per_loop", &Metrics::rar_loop_backs_per_loop,
                       "optimized RAR: smp_call_rar_many() do/while rounds after the first, per iteration (a request "
                       "left unprocessed when its target's rar_pending was released; 0 for other protocols)")
                .param("rar_unprocessed_per_loop", &Metrics::rar_unprocessed_per_loop,
                       "optimized RAR: wait_for_action_done() calls per iteration that gave up on a still-PENDING "
                       "byte because the target's rar_pending read -1 (0 for other protocols)")
                .param("latr_lazy_per_loop", &Metrics::latr_lazy_per_loop,
                       "latr: flushes per iteration that returned with their states queued, no IPI (0 for other "
                       "protocols)")
                .param("latr_fallbacks_per_loop", &Metrics::latr_fallbacks_per_loop,
                       "latr: flushes per iteration that fell back to the IPI shootdown (a permission change, or "
                       "every state of the initiator still in flight; 0 for other protocols)")
                .param("latr_applied_at_tick_per_loop", &Metrics::latr_applied_at_tick_per_loop,
                       "latr: queued states per iteration a target applied at its scheduler tick (0 for other "
                       "protocols)")
                .param("latr_applied_at_switch_per_loop", &Metrics::latr_applied_at_switch_per_loop,
                       "latr: queued states per iteration a target applied at a context switch (0 for other "
                       "protocols)")
                .param("irqs_per_loop", &Metrics::irqs_per_loop,
                       "interrupts the task CPUs took per iteration (any vector: cross calls, a protocol's own "
                       "IPIs or ticks)")
                .param("irqs_per_sec", &Metrics::irqs_per_sec,
                       "interrupts the task CPUs took per second of the window, all of them together")
                .unit("1/s")
                .param("user_share", &Metrics::user_share, "share of the task CPUs' time in user mode")
                .param("sys_share", &Metrics::sys_share,
                       "share of their time in the kernel (code, interrupts, spin-waits)")
                .param("idle_share", &Metrics::idle_share, "share of their time idle")
                .param("coalesced_share", &Metrics::coalesced_share,
                       "flush_tlb_func runs that returned at the generation checks")
                .param("lru_lock_rounds_per_loop", &Metrics::lru_lock_rounds_per_loop,
                       "LRU lock acquisitions per iteration")
                .param("vma_lock_fallbacks_per_loop", &Metrics::vma_lock_fallbacks_per_loop,
                       "faults and madvise calls per iteration whose per-VMA lock failed (the VMA write-locked by an "
                       "mmap or munmap, VMA_LOCK_ABORT), so they took mmap_lock")
                .param("lock_sleeps_per_loop", &Metrics::lock_sleeps_per_loop,
                       "times per iteration a task slept waiting for mmap_lock or a VMA's lock (schedule() in the "
                       "rwsem slow paths; many, with a high idle_share, is a lock convoy)")
                .param("nested_flush_share", &Metrics::nested_flush_share,
                       "share of the zaps (madvise, munmap) that finished while another thread's was open, and so "
                       "flushed the whole mm with freed_tables (mm_tlb_flush_nested)")
                .param("stale_tlb_hits", &Metrics::stale_tlb_hits,
                       "user accesses that hit a TLB entry with no PTE behind it (must be 0)");
        return s;
    }
    static WorkloadTraits traits() { return WorkloadTraits{.x86_only = true, .reports_profile = true}; }

    void check(const PointSetup& s) const override {
        if (p().threads > s.machine.nr_cpus()) {
            s.params.fail("threads", fmt::format("machine {} has {} CPUs", s.machine.name(), s.machine.nr_cpus()));
        }
    }

    RunResult run(const RunContext& ctx) override {
        kernel::Kernel& k = *ctx.kernel;
        const auto n = static_cast<uint32_t>(p().threads);
        kernel::mm::Mm& mm = k.mm();
        std::vector<MmStruct*> task_mm(n);
        for (uint32_t i = 0; i < n; ++i) {
            task_mm[i] = (p().mode == Mode::threads && i > 0) ? task_mm[0] : &mm.mm_alloc(k.machine().cpu_to_node(i));
        }
        std::vector<uint64_t> loops(n, 0);
        mm.set_asid_history(ctx.seed);  // the benchmark runs on a machine that ran other processes
        sim::Rng rng = sim::Rng::stream(ctx.seed, "tlb_flush2.start");
        // Steady start: each task's first region already mapped (in task order, so the
        // threads' regions lie next to each other and merge as their mmaps would), and the
        // page it begins at.
        std::vector<Resume> resume(n);
        for (uint32_t i = 0; i < n; ++i) {
            for (const uint64_t va : {kTextVa, kLibcMadviseVa, kResultsVa, stack_page(i)}) {
                mm.populate_before_start(*task_mm[i], va);
            }
        }
        if (p().start == Start::steady) {
            sim::Rng phase = sim::Rng::stream(ctx.seed, "tlb_flush2.phase");
            for (uint32_t i = 0; i < n; ++i) {
                resume[i].addr = mm.mmap_before_start(*task_mm[i], kRegion);
                resume[i].page = phase.uniform(0, kPages - 1);
            }
        }
        // The tasks are the scheduler's threads, bound, each with its mm: one that waits for an
        // rwsem sleeps (its CPU idles lazily, under the cpuidle governor: menu, the default).
        kernel::Sched& sched = k.sched();
        sched.cpuidle().set_enabled(true);
        for (uint32_t i = 0; i < n; ++i) {
            const sim::Picos jitter(rng.uniform(0, 1'000'000));
            kernel::Thread& t = sched.spawn(
                "tlb_flush2", i,
                [&mm, &loops, &task_mm, &resume, i, jitter](hw::Cpu& cpu, kernel::Thread& /*self*/) {
                    return testcase(cpu, mm, *task_mm[i], loops[i], jitter, resume[i], stack_page(i));
                },
                hw::Activity::user);
            t.mm = task_mm[i]->id;  // the first switch-in switches the CPU to it
        }
        k.boot();
        k.engine().run_until(p().warmup);
        const std::vector<uint64_t> start = loops;
        const kernel::SmpStats smp0 = k.smp().stats();
        const uint64_t rar0 = k.rar_messages();
        const kernel::RarCallStats* rar_calls = mm.protocol().rar_call_stats();
        const kernel::RarCallStats rar_calls0 = rar_calls != nullptr ? *rar_calls : kernel::RarCallStats{};
        const kernel::LatrStats* latr = mm.protocol().latr_stats();
        const kernel::LatrStats latr0 = latr != nullptr ? *latr : kernel::LatrStats{};
        const kernel::mm::TlbFlushStats fl0 = mm.flush_stats();
        const uint64_t lock0 = mm.lru().stats().lock_rounds;
        const uint64_t abort0 = mm.stats().vma_lock_abort;
        const uint64_t sleeps0 = mm.sched_link().sleeps();
        const uint64_t nested0 = mm.stats().nested_flushes;
        auto zaps = [&mm] { return mm.stats().madvise + mm.stats().munmap; };
        const uint64_t zaps0 = zaps();
        auto irqs = [&k, n] {
            uint64_t sum = 0;
            for (uint32_t i = 0; i < n; ++i) sum += k.platform().cpu(i).irqs_taken();
            return sum;
        };
        const uint64_t irqs0 = irqs();
        k.reset_profiles();
        k.engine().run_until(p().warmup + p().measure);

        Metrics m;
        for (uint32_t i = 0; i < n; ++i) m.loops += loops[i] - start[i];
        m.loops_per_sec = static_cast<double>(m.loops) / p().measure.seconds();
        time_shares(k, n, p().measure, m);
        const kernel::SmpStats& smp1 = k.smp().stats();
        m.ipis_per_loop = per((smp1.ipis_single - smp0.ipis_single) + (smp1.ipis_many - smp0.ipis_many), m.loops);
        // RAR messages delivered (to targets' microcode): the RAR protocols' "IPIs".
        m.rar_ipis_per_loop = per(k.rar_messages() - rar0, m.loops);
        if (rar_calls != nullptr) {
            m.rar_loop_backs_per_loop = per(rar_calls->loop_backs - rar_calls0.loop_backs, m.loops);
            m.rar_unprocessed_per_loop = per(rar_calls->unprocessed - rar_calls0.unprocessed, m.loops);
        }
        if (latr != nullptr) {
            m.latr_lazy_per_loop = per(latr->lazy_flushes - latr0.lazy_flushes, m.loops);
            m.latr_fallbacks_per_loop = per(
                (latr->ipi_fallbacks - latr0.ipi_fallbacks) + (latr->full_fallbacks - latr0.full_fallbacks), m.loops);
            m.latr_applied_at_tick_per_loop = per(latr->applied_at_tick - latr0.applied_at_tick, m.loops);
            m.latr_applied_at_switch_per_loop = per(latr->applied_at_switch - latr0.applied_at_switch, m.loops);
        }
        const uint64_t window_irqs = irqs() - irqs0;
        m.irqs_per_loop = per(window_irqs, m.loops);
        m.irqs_per_sec = static_cast<double>(window_irqs) / p().measure.seconds();
        m.loops_per_task_per_sec = m.loops_per_sec / n;
        const kernel::mm::TlbFlushStats& fl1 = mm.flush_stats();
        m.coalesced_share = per(fl1.coalesced - fl0.coalesced, fl1.flush_tlb_func - fl0.flush_tlb_func);
        m.lru_lock_rounds_per_loop = per(mm.lru().stats().lock_rounds - lock0, m.loops);
        m.vma_lock_fallbacks_per_loop = per(mm.stats().vma_lock_abort - abort0, m.loops);
        m.lock_sleeps_per_loop = per(mm.sched_link().sleeps() - sleeps0, m.loops);
        m.nested_flush_share = per(mm.stats().nested_flushes - nested0, zaps() - zaps0);
        m.stale_tlb_hits = mm.stats().stale_tlb_hits;
        return result(m);
    }

private:
    static sim::Task<> testcase(hw::Cpu& cpu, kernel::mm::Mm& mm, MmStruct& m, uint64_t& iterations, sim::Picos jitter,
                                Resume resume, uint64_t stack) {
        static const uint32_t user = hw::profile_label("tlb_flush2");
        auto scope = cpu.function(user, hw::Activity::user);
        co_await cpu.compute(jitter);
        for (;;) {
            uint64_t addr = resume.addr;
            uint64_t first = addr + resume.page * PAGE_SIZE;
            if (addr == 0) {
                addr = co_await mm.vm_mmap(cpu, m, kRegion);
                first = addr;
            }
            resume = Resume{};
            for (uint64_t va = first; va < addr + kRegion; va += PAGE_SIZE) {
                co_await mm.user_access(cpu, m, kTextVa, /*write=*/false);
                co_await mm.user_access(cpu, m, va, /*write=*/true);  // *c = 1
                co_await mm.user_access(cpu, m, kLibcMadviseVa, /*write=*/false);
                co_await mm.user_access(cpu, m, stack, /*write=*/true);
                co_await mm.do_madvise_dontneed(cpu, m, va, PAGE_SIZE);
                co_await mm.user_access(cpu, m, va, /*write=*/false);  // assert(*c == 0)
                co_await mm.user_access(cpu, m, kResultsVa, /*write=*/true);
                co_await cpu.compute_cycles(kernel::mm::costs::user_iteration);
                ++iterations;
            }
            co_await mm.vm_munmap(cpu, m, addr, kRegion);
        }
    }
};

const sim::Registration<Workload, TlbFlush2> reg(
    "workload", "tlb_flush2",
    "will-it-scale tlb_flush2: fault, MADV_DONTNEED (1-page flush), refault per page of a 1 MiB region");
const config::SchemaRegistration schema_reg("workload.tlb_flush2", [] { return TlbFlush2::params_schema().info(); });

}  // namespace

}  // namespace ipisim::workload
