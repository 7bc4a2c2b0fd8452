#include "check/check_stress.h"

#include <fmt/format.h>

#include <deque>
#include <memory>
#include <optional>

#include "check/monitors.h"
#include "experiment/system.h"
#include "kernel/mm/mm.h"
#include "kernel/tlbflush/global_asid_protocol.h"
#include "sim/rng.h"

namespace ipisim::check {

namespace {

using hw::Cpu;
using kernel::mm::MmStruct;
using kernel::mm::PAGE_SIZE;
using sim::Picos;

constexpr Picos ns(uint64_t n) {
    return Picos(n * 1000);
}

struct Region {
    uint64_t addr = 0;
    bool mapped = false;
    bool remapping = false;
    uint32_t users = 0;  // CPUs inside an access or madvise of it
};

// A short-lived multi-threaded process (process churn, global-ASID protocols only).
struct Churn {
    MmStruct* mm = nullptr;  // the current one; nullptr between two
    bool open = false;       // other CPUs may join it
    uint32_t inside = 0;     // CPUs that joined it and have not left (CPU 0 included)
    uint32_t running = 0;    // of them, those switched into it
    uint64_t addr = 0;
};

// The scheduler's view of one CPU for the threads of the shared process (one per CPU at the
// start, thread t with pid FIRST_TASK_PID + t): the thread running on it and those queued on
// its runqueue. Without a thread of the process, the CPU runs its private process.
struct Runqueue {
    int curr = -1;               // the running thread of the shared process, -1: none
    std::deque<uint32_t> queue;  // runnable threads of the shared process, FIFO
};

struct Shared {
    const StressSpec* spec = nullptr;
    kernel::mm::Mm* mm = nullptr;
    kernel::GlobalAsidProtocol* global = nullptr;  // the protocol, when it has global ASIDs
    Churn churn;
    MmStruct* a = nullptr;
    std::vector<MmStruct*> b;  // per CPU: its private second address space
    std::vector<Region> regions;
    std::vector<Runqueue> rq;
    bool ready = false;
    uint32_t done = 0;
    uint64_t accesses = 0;
    uint64_t migrations = 0;
    uint64_t mm_cpumask_joins = 0;
    uint64_t catch_ups = 0;
};

// Whether CPU c is in mm_cpumask(mm) now (bookkeeping only: no simulated access).
bool in_mm_cpumask(const MmStruct& mm, hw::CpuId c) {
    return (mm.cpumask[c / 64]->peek() >> (c % 64) & 1) != 0;
}

// Bookkeeping before a switch into the shared mm (no simulated access): the CPU does not run it
// now (another mm, or lazily) and its PCID slot of it is behind the mm's tlb_gen, because flushes
// skipped the CPU meanwhile: switch_mm_irqs_off() is about to catch up with a flush.
void count_catch_up(Shared& s, hw::CpuId c) {
    kernel::mm::CpuTlbState& st = s.mm->tlbstate(c);
    if (st.loaded_mm->peek() == s.a->id && st.is_lazy->peek() == 0) return;
    for (const kernel::mm::TlbContext& ctx : st.ctxs) {
        if (ctx.ctx_id->peek() == s.a->ctx_id && ctx.tlb_gen->peek() < s.a->tlb_gen->peek()) {
            ++s.catch_ups;
            return;
        }
    }
}

// context_switch() to thread t of the shared process: current->pid, and switch_mm_irqs_off()
// (a thread of the same process: nothing; from the private process: the shared mm's ASID, its
// tlb_gen catch-up, and mm_cpumask if the CPU left it meanwhile).
sim::Task<> switch_to_thread(Shared& s, Cpu& cpu, uint32_t t) {
    const hw::CpuId c = cpu.id();
    s.rq[c].curr = static_cast<int>(t);
    s.mm->set_task_pid(c, kernel::mm::FIRST_TASK_PID + t);
    if (!in_mm_cpumask(*s.a, c)) ++s.mm_cpumask_joins;
    count_catch_up(s, c);
    co_await s.mm->switch_mm_irqs_off(cpu, *s.a);
}

// A scheduling point of a CPU that may have several threads (the tick: round robin), or none
// (idle balance: newidle_balance() pulls a queued thread from the first other CPU, in CPU
// order after this one, that has one).
sim::Task<> schedule_point(Shared& s, Cpu& cpu) {
    const hw::CpuId c = cpu.id();
    Runqueue& rq = s.rq[c];
    if (rq.curr >= 0) {
        if (rq.queue.empty()) co_return;
        rq.queue.push_back(static_cast<uint32_t>(rq.curr));
    } else if (rq.queue.empty()) {
        const auto n = static_cast<hw::CpuId>(s.rq.size());
        for (hw::CpuId k = 1; k < n; ++k) {
            Runqueue& busiest = s.rq[(c + k) % n];
            if (busiest.queue.empty()) continue;
            rq.queue.push_back(busiest.queue.front());  // detach_task / attach_task
            busiest.queue.pop_front();
            ++s.migrations;
            break;
        }
        if (rq.queue.empty()) co_return;
    }
    const uint32_t next = rq.queue.front();
    rq.queue.pop_front();
    co_await switch_to_thread(s, cpu, next);
}

// The running thread migrates (migrate_task_to / move_queued_task): it leaves this CPU's
// runqueue for another CPU's, whose next scheduling point switches it in. This CPU runs its
// next thread, or its private process when it has none.
sim::Task<> migrate_current(Shared& s, Cpu& cpu, sim::Rng& rng) {
    const hw::CpuId c = cpu.id();
    Runqueue& rq = s.rq[c];
    const auto n = static_cast<hw::CpuId>(s.rq.size());
    auto to = static_cast<hw::CpuId>(rng.uniform(0, n - 2));
    if (to >= c) ++to;
    s.rq[to].queue.push_back(static_cast<uint32_t>(rq.curr));
    rq.curr = -1;
    ++s.migrations;
    if (!rq.queue.empty()) {
        const uint32_t next = rq.queue.front();
        rq.queue.pop_front();
        co_await switch_to_thread(s, cpu, next);
    } else {
        co_await s.mm->switch_mm_irqs_off(cpu, *s.b[c]);
    }
}

sim::Task<> access_region(Shared& s, Cpu& cpu, sim::Rng& rng, Region& r) {
    const uint64_t n = rng.uniform(1, 4);
    for (uint64_t k = 0; k < n; ++k) {
        const uint64_t page = rng.uniform(0, s.spec->pages_per_region - 1);
        // Even pages are written, odd pages only read (no write to a zero-page mapping).
        co_await s.mm->user_access(cpu, *s.a, r.addr + page * PAGE_SIZE, page % 2 == 0);
        ++s.accesses;
        co_await cpu.compute(ns(rng.uniform(20, 300)));
    }
}

sim::Task<> remap_region(Shared& s, Cpu& cpu, Region& r) {
    r.mapped = false;
    r.remapping = true;
    // Wait (bounded) for the region's users to leave it.
    for (int i = 0; i < 250 && r.users > 0; ++i) co_await cpu.compute(ns(200));
    if (r.users == 0) {
        const uint64_t len = s.spec->pages_per_region * PAGE_SIZE;
        co_await s.mm->vm_munmap(cpu, *s.a, r.addr, len);
        r.addr = co_await s.mm->vm_mmap(cpu, *s.a, len);
    }
    r.remapping = false;
    r.mapped = true;
}

// CPU 0 starts a process, waits (bounded) until at least four CPUs run it, flushes one of its
// pages (flush_tlb_mm_range, where consider_global_asid() may give it a global ASID: CPU 0's
// task is in phase with the first jiffies), lets the others leave, and tears it down
// (destroy_context(): mm_free_global_asid()). The next one may get a recycled ASID once the
// space wrapped.
sim::Task<> drive_process(Shared& s, Cpu& cpu, sim::Rng& rng, MmStruct& home) {
    kernel::mm::Mm& mm = *s.mm;
    Churn& p = s.churn;
    p.mm = &mm.mm_alloc(0);
    co_await mm.switch_mm_irqs_off(cpu, *p.mm);
    p.addr = co_await mm.vm_mmap(cpu, *p.mm, 2 * PAGE_SIZE);
    co_await mm.user_access(cpu, *p.mm, p.addr, true);
    p.inside = 1;
    p.running = 1;
    p.open = true;
    for (int i = 0; i < 100 && p.running < 4; ++i) co_await cpu.compute(ns(200));
    co_await mm.do_madvise_dontneed(cpu, *p.mm, p.addr, PAGE_SIZE);
    co_await mm.user_access(cpu, *p.mm, p.addr, true);
    co_await cpu.compute(ns(rng.uniform(200, 2'000)));
    p.open = false;
    // The last thread exits: wait for the others to leave (each stays a few microseconds).
    while (p.inside > 1) co_await cpu.compute(ns(200));
    p.running = 0;
    count_catch_up(s, cpu.id());
    co_await mm.switch_mm_irqs_off(cpu, home);
    p.inside = 0;
    // exit_mmap() ... destroy_context(): the global ASID goes back to the allocator.
    co_await s.global->global_asids().mm_free_global_asid(cpu, *p.mm);
    p.mm = nullptr;
}

// Another CPU's thread of the current process runs a while, if one is open: a few accesses, and
// more while it stays open.
sim::Task<> join_process(Shared& s, Cpu& cpu, sim::Rng& rng, MmStruct& home) {
    kernel::mm::Mm& mm = *s.mm;
    Churn& p = s.churn;
    MmStruct& proc = *p.mm;
    const uint64_t addr = p.addr;
    ++p.inside;
    co_await mm.switch_mm_irqs_off(cpu, proc);
    ++p.running;
    // Until the process is no longer open (CPU 0 flushed it), at least one access, at most 8.
    const uint64_t n = rng.uniform(1, 4);
    for (uint64_t k = 0; k < 8 && (k < n || p.open); ++k) {
        const uint64_t page = rng.uniform(0, 1);  // page 0 written, page 1 read (see access_region)
        co_await mm.user_access(cpu, proc, addr + page * PAGE_SIZE, page == 0);
        co_await cpu.compute(ns(rng.uniform(200, 2'000)));
    }
    --p.running;
    count_catch_up(s, cpu.id());
    co_await mm.switch_mm_irqs_off(cpu, home);
    --p.inside;
}

sim::Task<> cpu_body(Shared& s, Cpu& cpu) {
    static const uint32_t user = hw::profile_label("check_stress.user");
    static const uint32_t kthread = hw::profile_label("check_stress.kthread");
    auto scope = cpu.function(user, hw::Activity::user);
    const hw::CpuId c = cpu.id();
    kernel::mm::Mm& mm = *s.mm;
    co_await mm.switch_mm_irqs_off(cpu, *s.a);
    const uint64_t b_addr = co_await mm.vm_mmap(cpu, *s.b[c], 2 * PAGE_SIZE);
    if (c == 0) {
        for (Region& r : s.regions) {
            r.addr = co_await mm.vm_mmap(cpu, *s.a, s.spec->pages_per_region * PAGE_SIZE);
            r.mapped = true;
        }
        s.ready = true;
    }
    while (!s.ready) co_await cpu.compute(ns(100));
    sim::Rng rng = sim::Rng::stream(s.spec->seed, fmt::format("check_stress.cpu.{}", c));
    Runqueue& rq = s.rq[c];
    for (uint32_t op = 0; op < s.spec->ops_per_cpu; ++op) {
        if (s.spec->migration) co_await schedule_point(s, cpu);
        if (rq.curr < 0) {
            // No thread of the shared process here: the private process runs a while.
            co_await mm.user_access(cpu, *s.b[c], b_addr, true);
            co_await cpu.compute(ns(rng.uniform(200, 5'000)));
            continue;
        }
        const uint64_t kind = rng.uniform(0, 99);
        Region& r = s.regions[rng.uniform(0, s.regions.size() - 1)];
        if (kind < 55) {
            if (!r.mapped) continue;
            ++r.users;
            co_await access_region(s, cpu, rng, r);
            --r.users;
        } else if (s.global != nullptr && s.spec->process_churn && c != 0 && s.churn.open) {
            co_await join_process(s, cpu, rng, *s.a);  // any operation but a shared access: join it
        } else if (kind < 70) {
            if (!r.mapped) continue;
            const uint64_t page = rng.uniform(0, s.spec->pages_per_region - 1);
            ++r.users;
            co_await mm.do_madvise_dontneed(cpu, *s.a, r.addr + page * PAGE_SIZE, PAGE_SIZE);
            --r.users;
        } else if (kind < 74) {
            if (!r.mapped || r.remapping) continue;
            co_await remap_region(s, cpu, r);
        } else if (kind < 86) {
            // A kernel thread runs: lazy TLB, then back to the task's mm.
            co_await mm.enter_lazy_tlb(cpu);
            {
                auto k = cpu.function(kthread, hw::Activity::kernel);
                co_await cpu.compute(ns(rng.uniform(1'000, 20'000)));
            }
            count_catch_up(s, c);
            co_await mm.switch_mm_irqs_off(cpu, *s.a);
        } else if (kind < 94 && s.global != nullptr && s.spec->process_churn && c == 0 && s.churn.mm == nullptr) {
            co_await drive_process(s, cpu, rng, *s.a);
        } else if (kind < 94) {
            // Another process (its own mm and PCID) runs for a while.
            co_await mm.switch_mm_irqs_off(cpu, *s.b[c]);
            co_await mm.user_access(cpu, *s.b[c], b_addr, true);
            co_await cpu.compute(ns(rng.uniform(200, 5'000)));
            count_catch_up(s, c);
            co_await mm.switch_mm_irqs_off(cpu, *s.a);
        } else if (kind < 97 && s.spec->migration && s.rq.size() > 1) {
            co_await migrate_current(s, cpu, rng);
        } else {
            co_await cpu.compute(ns(rng.uniform(100, 3'000)));
        }
    }
    ++s.done;
}

}  // namespace

StressResult run_check_stress(const StressSpec& spec) {
    std::optional<hw::ObserverScope> observed;
    if (spec.observer != nullptr) observed.emplace(*spec.observer, /*timeline=*/true);
    kernel::KernelConfig config;
    config.tlb_flush = spec.protocol;
    auto sys = std::make_unique<experiment::System>(spec.machine, config);
    kernel::Kernel& k = sys->kernel();
    sim::Engine& eng = sys->engine();
    MonitorOptions options;
    options.wait_bound = spec.wait_bound;
    options.event_log = spec.event_log;
    options.stop_on_violation = true;
    Monitors mon(sys->platform(), options, &k);
    SeededPerturbation perturbation(spec.perturbation, spec.seed);
    StressResult out;
    {
        std::unique_ptr<Monitors::Installed> on;
        if (spec.monitors) on = std::make_unique<Monitors::Installed>(mon);
        std::unique_ptr<SeededPerturbation::Installed> perturbed;
        if (spec.perturb) perturbed = std::make_unique<SeededPerturbation::Installed>(perturbation);

        Shared s;
        s.spec = &spec;
        s.mm = &k.mm();
        if (s.mm->protocol().global_asid_flavour() != kernel::GlobalAsidFlavour::none) {
            s.global = dynamic_cast<kernel::GlobalAsidProtocol*>(&s.mm->protocol());
            if (s.global != nullptr && spec.global_asids != 0) {
                s.global->global_asids().set_max_asid_available(s.mm->nr_dyn_asids() + 1 + spec.global_asids);
            }
        }
        s.a = &s.mm->mm_alloc(0);
        const uint32_t n = k.nr_cpus();
        for (hw::CpuId c = 0; c < n; ++c) s.b.push_back(&s.mm->mm_alloc(sys->platform().topology().node_of(c)));
        s.regions.resize(spec.regions);
        s.rq.resize(n);
        for (hw::CpuId c = 0; c < n; ++c) s.rq[c].curr = static_cast<int>(c);
        for (hw::CpuId c = 0; c < n; ++c) {
            k.run_on(c, [&s](Cpu& cpu) -> sim::Task<> { co_await cpu_body(s, cpu); });
        }
        k.boot();
        const Picos limit = mon.waits().bound() + mon.waits().bound() / 2 + Picos(10'000'000'000);
        const Picos step = Picos(50'000'000);  // 50 us
        while (mon.total() == 0 && s.done < n && eng.now() < limit) {
            eng.run_until(eng.now() + step);
            if (eng.pending_events() == 0) {
                out.drained = true;
                break;
            }
        }
        out.unfinished = n - s.done;
        if (mon.total() == 0) mon.finish(out.drained, out.unfinished);
        if (mon.total() == 0 && out.unfinished > 0) {
            out.violations.push_back(Violation{
                .kind = ViolationKind::stuck_wait,
                .time = eng.now(),
                .diagnosis = fmt::format("{} CPUs did not finish their operations by {} (no wait outlived the bound)",
                                         out.unfinished, sim::to_string(eng.now())),
            });
            out.total_violations = 1;
        }
        out.accesses = s.accesses;
        out.migrations = s.migrations;
        out.mm_cpumask_joins = s.mm_cpumask_joins;
        out.catch_ups = s.catch_ups;
        out.flushes = s.mm->flush_stats().flush_tlb_mm_range;
        out.fingerprint = eng.fingerprint();
        out.events = eng.events_simulated();
        out.end = eng.now();
        // The frames go before the hooks and the workload's state they reference.
        eng.shutdown();
    }
    if (out.violations.empty()) {
        out.violations = mon.violations();
        out.total_violations = mon.total();
    }
    out.window = mon.window();
    return out;
}

}  // namespace ipisim::check
