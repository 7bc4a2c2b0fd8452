#include "kernel/kernel_config.h"

#include <fmt/format.h>

#include "kernel/tlbflush/tlb_flush_protocol.h"
#include "sim/registry.h"

namespace ipisim::kernel {

namespace {

Version version_of(const KernelConfig& k) {
    return k.parsed_version();
}

std::vector<std::pair<std::string, std::string>> flush_protocols() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto* e : sim::Registry<TlbFlushProtocol>::instance().entries()) out.emplace_back(e->name, e->name);
    return out;
}

config::Schema<KernelConfig> make_schema() {
    config::Schema<KernelConfig> s(
        "kernel", "the simulated Linux: its version and the subsystem choices of its build and patches");
    s.param("version", &KernelConfig::version,
            fmt::format("Linux version MAJOR.MINOR (\"6.13\"; \"5.17.2\" and \"6.18-rc1\" read as 5.17 and 6.18), "
                        "{} to {}: version-gated behaviours and the defaults below follow it",
                        kOldestModeled.text(), kNewestModeled.text()))
        .check([](const KernelConfig& k) -> std::string {
            const std::optional<Version> v = Version::parse(k.version);
            if (!v) return fmt::format("expected a kernel version like \"6.13\", got \"{}\"", k.version);
            return unmodeled_version(*v);
        });
    s.choice("tlb_flush", &KernelConfig::tlb_flush, flush_protocols(),
             "remote TLB flush protocol of flush_tlb_mm_range (arch/x86/mm/tlb.c): ipi = native_flush_tlb_multi "
             "IPIs; invlpgb = AMD broadcast with global ASIDs (6.15+, needs INVLPGB); rar-* = Intel RAR RFC "
             "(needs RAR)")
        .def(std::string("ipi"))
        .when("x86");
    s.param("madvise_lru_add_drain", &KernelConfig::madvise_lru_add_drain,
            "madvise(MADV_DONTNEED) calls lru_add_drain() first (removed by Rik van Riel's \"mm: remove "
            "unnecessary calls to lru_add_drain\", 2024-12)")
        .def_fn<bool>(
            [](const KernelConfig& k) {
                return version_of(k) < Version{6, 14};
            },
            "true before 6.14, false from 6.14");
    s.param("lazy_mm_cpumask", &KernelConfig::lazy_mm_cpumask,
            "x86 switch_mm_irqs_off leaves the CPU in the previous mm's mm_cpumask (it leaves lazily, at a flush "
            "that finds it running another mm, and flush_tlb_mm_range trims the mask by IPIs at most once a "
            "second), and sets it in the next mm's only when missing; false: the switch clears and sets the bits "
            "every time, no trimming (Rik van Riel's \"x86/mm/tlb: Update mm_cpumask lazily\", 209954cbc7d0, and "
            "\"Only trim the mm_cpumask once a second\", 6db2526c1d69, both 6.14)")
        .def_fn<bool>(
            [](const KernelConfig& k) {
                return version_of(k) >= Version{6, 14};
            },
            "false before 6.14, true from 6.14")
        .when("x86");
    // fault_lock, madvise_lock: mmap_lock before `since`, the per-VMA lock from it.
    auto vma_lock_from = [&s](const std::string& key, mm::MmLock KernelConfig::*field, Version since,
                              const std::string& doc) {
        s.choice(key, field, {{"mmap_lock", mm::MmLock::mmap_lock}, {"vma_lock", mm::MmLock::vma_lock}}, doc)
            .def_fn<mm::MmLock>(
                [since](const KernelConfig& k) {
                    return version_of(k) < since ? mm::MmLock::mmap_lock : mm::MmLock::vma_lock;
                },
                fmt::format("mmap_lock before {0}, vma_lock from {0}", since.text()));
    };
    vma_lock_from("fault_lock", &KernelConfig::fault_lock, Version{6, 4},
                  "the lock a user page fault takes: mmap_lock = mmap_read_lock (lock_mm_and_find_vma); vma_lock = "
                  "the per-VMA lock (lock_vma_under_rcu, CONFIG_PER_VMA_LOCK, x86 from 6.4), mmap_lock when the VMA "
                  "is write-locked (docs/mechanisms.md §5.5)");
    vma_lock_from("madvise_lock", &KernelConfig::madvise_lock, Version{6, 17},
                  "the lock madvise(MADV_DONTNEED) takes: mmap_lock = mmap_read_lock; vma_lock = the per-VMA lock "
                  "when the range lies in one VMA, else mmap_lock (Barry Song's \"mm: use per_vma lock for "
                  "MADV_DONTNEED\", a6fde7add78d)");
    s.param("folio_batch_size", &KernelConfig::folio_batch_size,
            "PAGEVEC_SIZE, the capacity of the per-CPU folio_batch that folio_add_lru() fills before moving it onto "
            "the LRU under the node's lru_lock (mm/swap.c; Matthew Wilcox's \"mm: increase folio batch size\", "
            "9cecde80aae0, raised it from 15 to 31); its unsigned char count caps it at 255")
        .def_fn<uint32_t>(
            [](const KernelConfig& k) {
                return version_of(k) < Version{6, 9} ? uint32_t{15} : uint32_t{31};
            },
            "15 before 6.9, 31 from 6.9")
        .at_least(1)
        .at_most(255);
    s.choice("call_any_policy", &KernelConfig::call_any_policy,
             {{"same_node", CallAnyPolicy::same_node}, {"nearest_node", CallAnyPolicy::nearest_node}},
             "the CPU smp_call_function_any() picks when the caller is not in the mask (docs/mechanisms.md §1.5): "
             "same_node = first CPU of the caller's node, else any; nearest_node = nearest by NUMA distance")
        .def_fn<CallAnyPolicy>(
            [](const KernelConfig& k) {
                return version_of(k) < Version{6, 17} ? CallAnyPolicy::same_node : CallAnyPolicy::nearest_node;
            },
            "same_node before 6.17, nearest_node from 6.17 (tip 5f295519b42f)");
    s.param("memcg_depth", &KernelConfig::memcg_depth,
            "levels of the tasks' memory cgroup below the root: each charge refill and each freeing batch does one "
            "atomic on the page counter of every level and of the root (docs/mechanisms.md §5.4); 0 = the root cgroup, "
            "not charged. Default 3: a login session's /user.slice/user-UID.slice/session-N.scope [A]")
        .def(uint32_t{3})
        .at_most(8);
    s.param("hz", &KernelConfig::hz,
            "CONFIG_HZ (100, 250, 300 or 1000), jiffies per second: the scheduler tick, msleep() rounding, mm's "
            "jiffies rate limits")
        .def(uint32_t{250})
        .check([](const KernelConfig& k) -> std::string {
            if (k.hz == 100 || k.hz == 250 || k.hz == 300 || k.hz == 1000) return "";
            return fmt::format("must be 100, 250, 300 or 1000 (CONFIG_HZ_*), got {}", k.hz);
        });
    s.param(
         "skew_tick", &KernelConfig::skew_tick,
         "boot option skew_tick=1: CPU c's scheduler tick fires (TICK_NSEC/2)/num_possible_cpus()*c after the jiffy "
         "boundary instead of every CPU's at it (tick_setup_sched_timer, kernel/time/tick-sched.c; since 3.5, off by "
         "default). Moves the ticks the cpuidle governor plans with and the ones LATR applies its flushes at")
        .def(false);
    s.choice("gic_barrier", &KernelConfig::gic_barrier,
             {{"wmb", irqchip::GicIpiBarrier::wmb}, {"dsb_ishst", irqchip::GicIpiBarrier::dsb_ishst}},
             "barrier of gic_ipi_send_mask before the ICC_SGI1R_EL1 writes: wmb = dsb(st), full system; "
             "dsb_ishst = inner shareable (Barry Song's patch, seed 002)")
        .def_fn<irqchip::GicIpiBarrier>(
            [](const KernelConfig& k) {
                return version_of(k) < Version{5, 18} ? irqchip::GicIpiBarrier::wmb : irqchip::GicIpiBarrier::dsb_ishst;
            },
            "wmb before 5.18, dsb_ishst from 5.18")
        .when("gicv3");
    s.param("no_ipi_broadcast", &KernelConfig::no_ipi_broadcast,
            "boot option no_ipi_broadcast=1: native_send_call_func_ipi never sends the all-but-self destination "
            "shorthand, a call to every other online CPU takes the per-target (x2APIC cluster: per-cluster) "
            "send_IPI_mask path (arch/x86/kernel/apic/ipi.c)")
        .def(false)
        .when("x86");
    s.choice("arch_freq_prepare_all", &KernelConfig::arch_freq_prepare_all,
             {{"serial_single", FreqPrepareVariant::serial_single}, {"many", FreqPrepareVariant::many}},
             "cpuinfo_open's APERF/MPERF refresh before 5.19: serial_single = one async "
             "smp_call_function_single per CPU, then msleep(10); many = one smp_call_function_many (Eric "
             "Dumazet's patch, seed 004). 5.19+ has no arch_freq_prepare_all")
        .def(FreqPrepareVariant::serial_single)
        .when("x86");
    s.choice("resctrl_dispatch", &KernelConfig::resctrl_dispatch,
             {{"call_on_cpu", MonDispatch::call_on_cpu}, {"call_any", MonDispatch::call_any}},
             "how mon_event_read() reaches the counter's domain: call_on_cpu = smp_call_on_cpu (workqueue); "
             "call_any = smp_call_function_any (Peter Newman's patch, seed 001)")
        .def_fn<MonDispatch>(
            [](const KernelConfig& k) {
                return version_of(k) < Version{6, 8} ? MonDispatch::call_any : MonDispatch::call_on_cpu;
            },
            "call_any before 6.8, call_on_cpu from 6.8 (09909e098113)")
        .when("x86");
    return s;
}

const config::SchemaRegistration registration("kernel", [] { return kernel_schema().info(); });

}  // namespace

Version KernelConfig::parsed_version() const {
    if (version.empty()) return Version{};
    const std::optional<Version> v = Version::parse(version);
    if (!v) throw std::logic_error("kernel version \"" + version + "\" does not parse");
    return *v;
}

const config::Schema<KernelConfig>& kernel_schema() {
    static const config::Schema<KernelConfig> s = make_schema();
    return s;
}

config::Conditions kernel_conditions(const MachineInfo& machine) {
    return config::Conditions{{"x86", machine.x86()}, {"gicv3", machine.gicv3()}};
}

KernelConfig read_kernel_config(config::Table& table, const MachineInfo& machine) {
    KernelConfig k;
    config::Conditions conditions = kernel_conditions(machine);
    kernel_schema().read_keys(table, k, conditions);
    table.finish();
    if (machine.x86()) {
        const std::string problem = tlb_flush_protocol_check(k.tlb_flush, machine.spec());
        if (!problem.empty()) table.fail("tlb_flush", problem);
    }
    return k;
}

}  // namespace ipisim::kernel
