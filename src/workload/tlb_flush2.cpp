// will-it-scale tlb_flush2 (docs/mechanisms.md §5): every task loops forever over a fresh 1 MiB
// anonymous private mapping: for each of its 256 pages, write one byte (anonymous write fault:
// a zeroed page, into the LRU batch), madvise(MADV_DONTNEED) the page (zap, free, 1-page TLB
// flush), read the byte back (read fault: the zero page), count one iteration; then munmap the
// region (full flush, page tables freed) and mmap a new one.
//
// threads: tasks share one mm (tlb_flush2_threads: every flush is a shootdown to the other
// tasks' CPUs); processes: one mm each (every flush is local). Task i is bound to CPU i, which
// with the machine's smt_last numbering is one task per core first, then the SMT siblings.
// Tasks start together (after a uniform 0-1 us jitter drawn from the run's seed, standing in
// for the wake-up from the start pipe), never sleep, and run as each CPU's kernel work; IRQs
// preempt them. loops_per_sec = iterations summed over tasks in the measurement window after
// the warm-up, divided by its length (main.c prints that sum averaged over 1 s samples).
#include <fmt/format.h>

#include <vector>

#include "kernel/mm/mm.h"
#include "kernel/mm/mm_costs.h"
#include "sim/registry.h"
#include "sim/rng.h"
#include "workload/system.h"

namespace ipisim::workload {

namespace {

using kernel::mm::MmStruct;
using kernel::mm::PAGE_SIZE;

constexpr uint64_t kRegion = 1ULL << 20;  // MEMSIZE: 1 MiB

// TLB invalidation time: labels the flush protocols tag as such, and those of the cross-call
// layer and IPI send loops they use (here every cross call and IPI is a flush).
bool is_flush_label(const std::string& n) {
    const hw::LabelCategory c = hw::profile_label_category(hw::profile_label(n));
    return c == hw::LabelCategory::tlb_invalidation || c == hw::LabelCategory::cross_call ||
           c == hw::LabelCategory::ipi_send;
}

class TlbFlush2 : public Workload {
public:
    RunResult run(config::Table& params, const RunContext& ctx) override {
        const auto threads = params.get<int64_t>("threads");
        const auto mode = params.get_or<std::string>("mode", "threads");
        const auto flush = params.get<std::string>("flush");
        const auto drain = params.get<bool>("lru_add_drain");
        const sim::Picos warmup = params.duration("warmup");
        const sim::Picos measure = params.duration("measure");
        params.finish();
        if (mode != "threads" && mode != "processes") {
            params.fail("mode", "must be \"threads\" or \"processes\", got \"" + mode + "\"");
        }
        if (!sim::Registry<kernel::TlbFlushProtocol>::instance().contains(flush)) {
            params.fail("flush", "unknown TLB flush protocol \"" + flush +
                                     "\"; registered: " + kernel::tlb_flush_protocol_names());
        }
        if (measure == sim::Picos::zero()) params.fail("measure", "must be positive");

        System sys(ctx, "tlb_flush2");
        if (threads < 1 || threads > sys.nr_cpus()) {
            params.fail("threads", fmt::format("machine {} has {} CPUs", sys.spec.name, sys.nr_cpus()));
        }
        const auto n = static_cast<uint32_t>(threads);
        kernel::mm::Mm mm(*sys.kernel, flush);
        mm.set_madvise_lru_add_drain(drain);
        const hw::Topology& topo = sys.spec.topology;
        std::vector<MmStruct*> task_mm(n);
        for (uint32_t i = 0; i < n; ++i) {
            task_mm[i] = (mode == "threads" && i > 0) ? task_mm[0] : &mm.mm_alloc(topo.node_of(i));
        }
        std::vector<uint64_t> loops(n, 0);
        sim::Rng rng = sim::Rng::stream(ctx.seed, "tlb_flush2.start");
        for (uint32_t i = 0; i < n; ++i) {
            const sim::Picos jitter(rng.uniform(0, 1'000'000));
            sys.kernel->run_on(i, [&mm, &loops, &task_mm, i, jitter](hw::Cpu& cpu) {
                return testcase(cpu, mm, *task_mm[i], loops[i], jitter);
            });
        }
        sys.kernel->boot();
        sys.eng.run_until(warmup);
        const std::vector<uint64_t> start = loops;
        const kernel::SmpStats smp0 = sys.smp().stats();
        const uint64_t rar0 = sys.platform->intc().fabric().stats().rar_messages;
        const kernel::mm::TlbFlushStats fl0 = mm.flush_stats();
        const uint64_t lock0 = mm.lru().stats().lock_rounds;
        sys.reset_profiles();
        sys.eng.run_until(warmup + measure);

        RunResult out;
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; ++i) total += loops[i] - start[i];
        const double secs = measure.seconds();
        out.metrics["loops_per_sec"] = static_cast<double>(total) / secs;
        out.metrics["loops"] = total;
        // CPU-time shares over the task CPUs (always busy): flush paths on both sides, and the
        // LRU lock (spinning for it or holding it).
        double flush_t = 0;
        double lru_t = 0;
        for (uint32_t c = 0; c < n; ++c) {
            hw::CpuProfile& prof = sys.cpu(c).profile();
            prof.settle(sys.eng.now());
            for (uint32_t l = 0; l < prof.nr_labels(); ++l) {
                if (prof.time_in_label(l) == sim::Picos::zero()) continue;
                const std::string& name = hw::profile_label_name(l);
                const bool lru = name.find("lru_lock") != std::string::npos;
                for (size_t a = 0; a < hw::kActivities; ++a) {
                    const auto act = static_cast<hw::Activity>(a);
                    const double t = static_cast<double>(prof.time(l, act).count());
                    if (lru) lru_t += t;
                    if (!lru && (is_flush_label(name) || act == hw::Activity::irq)) flush_t += t;
                }
            }
        }
        const double cpu_time = static_cast<double>(measure.count()) * n;
        out.metrics["tlb_invalidation_share"] = flush_t / cpu_time;
        out.metrics["lru_lock_share"] = lru_t / cpu_time;
        const kernel::SmpStats& smp1 = sys.smp().stats();
        const uint64_t ipis = (smp1.ipis_single - smp0.ipis_single) + (smp1.ipis_many - smp0.ipis_many);
        out.metrics["ipis_per_loop"] = total ? static_cast<double>(ipis) / static_cast<double>(total) : 0.0;
        // RAR messages delivered (to targets' microcode): the RAR protocols' "IPIs".
        const uint64_t rars = sys.platform->intc().fabric().stats().rar_messages - rar0;
        out.metrics["rar_ipis_per_loop"] = total ? static_cast<double>(rars) / static_cast<double>(total) : 0.0;
        const kernel::mm::TlbFlushStats& fl1 = mm.flush_stats();
        const uint64_t handlers = fl1.flush_tlb_func - fl0.flush_tlb_func;
        const uint64_t coalesced = fl1.coalesced - fl0.coalesced;
        out.metrics["coalesced_share"] =
            handlers ? static_cast<double>(coalesced) / static_cast<double>(handlers) : 0.0;
        out.metrics["lru_lock_rounds_per_loop"] =
            total ? static_cast<double>(mm.lru().stats().lock_rounds - lock0) / static_cast<double>(total) : 0.0;
        out.metrics["stale_tlb_hits"] = mm.stats().stale_tlb_hits;
        out.profile = sys.profile();
        sys.record_run(out);
        sys.eng.shutdown();  // task frames reference `mm`
        return out;
    }

private:
    static sim::Task<> testcase(hw::Cpu& cpu, kernel::mm::Mm& mm, MmStruct& m, uint64_t& iterations,
                                sim::Picos jitter) {
        static const uint32_t user = hw::profile_label("tlb_flush2");
        auto scope = cpu.function(user, hw::Activity::user);
        co_await cpu.compute(jitter);
        co_await mm.switch_mm_irqs_off(cpu, m);
        for (;;) {
            const uint64_t addr = co_await mm.vm_mmap(cpu, m, kRegion);
            for (uint64_t va = addr; va < addr + kRegion; va += PAGE_SIZE) {
                co_await mm.user_access(cpu, m, va, /*write=*/true);  // *c = 1
                co_await mm.do_madvise_dontneed(cpu, m, va, PAGE_SIZE);
                co_await mm.user_access(cpu, m, va, /*write=*/false);  // assert(*c == 0)
                co_await cpu.compute_cycles(sim::Cycles(kernel::mm::costs::user_iteration));
                ++iterations;
            }
            co_await mm.vm_munmap(cpu, m, addr, kRegion);
        }
    }
};

const sim::Registration<Workload, TlbFlush2> reg(
    "workload", "tlb_flush2",
    "will-it-scale tlb_flush2: fault, MADV_DONTNEED (1-page flush), refault per page of a 1 MiB region");

}  // namespace

}  // namespace ipisim::workload
