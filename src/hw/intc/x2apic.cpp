#include "hw/intc/x2apic.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "hw/cpu/cpu.h"
#include "hw/intc/intc_type.h"

namespace ipisim::hw {

const config::Schema<X2apicParams>& x2apic_params_schema() {
    static const auto s = [] {
        config::Schema<X2apicParams> p("machine.intc.params", "x2APIC (MSR interface)");
        p.param("icr_write", &X2apicParams::icr_write, "one ICR WRMSR (per target physical, per cluster logical)")
            .cost();
        p.param("fence", &X2apicParams::fence, "weak_wrmsr_fence (mfence; lfence) once per send call; 0 on AMD").cost();
        return p;
    }();
    return s;
}

void X2apic::on_attach() {
    params_ = &intc_params<X2apicParams>(spec());
    uint64_t max_id = 0;
    for (const CpuInfo& c : topology().cpus()) max_id = std::max(max_id, c.hw_id);
    cpu_of_id_.assign(max_id + 1, kNoCpu);
    cluster_cpus_.assign((max_id >> 4) + 1, {});
    for (CpuId c = 0; c < nr_cpus(); ++c) {
        cpu_of_id_[apic_id(c)] = c;
        cluster_cpus_[apic_id(c) >> 4].push_back(c);
    }
}

// mfence waits for the store buffer to drain (hw/coherence/store_buffer.h), so the ICR write
// after it cannot send before older stores are visible. On AMD the kernel patches the fence
// out (04c3024560d3, "x86/barrier: Do not serialize MSR accesses on AMD": AMD "does not have
// the requirement"); the model still drains there [A]: an IPI that could overtake older stores
// would break every cross-call, so AMD's WRMSR to the ICR evidently orders them.
sim::Task<> X2apic::wrmsr_fence(Cpu& sender) {
    co_await sender.drain_stores();
    co_await sender.stall(params().fence);
}

sim::Task<> X2apic::write_icr(Cpu& sender, uint32_t dest, DestMode mode, uint32_t vector, DeliveryMode delivery) {
    ++stats_.register_writes;
    co_await sender.stall(params().icr_write);
    if (mode == DestMode::physical) {
        if (dest >= cpu_of_id_.size() || cpu_of_id_[dest] == kNoCpu) {
            throw std::invalid_argument(fmt::format("x2APIC ICR write to unknown APIC id {}", dest));
        }
        post(sender, cpu_of_id_[dest], vector, delivery);
        co_return;
    }
    const uint32_t cluster = dest >> 16;
    if (cluster >= cluster_cpus_.size()) {
        throw std::invalid_argument(fmt::format("x2APIC ICR write to unknown cluster {}", cluster));
    }
    group_.clear();
    for (const CpuId c : cluster_cpus_[cluster]) {
        if ((dest & logical_id(apic_id(c)) & 0xFFFF) != 0) group_.push_back(c);
    }
    if (!group_.empty()) post_group(sender, group_, vector, delivery);  // one message for the router
}

sim::Task<> X2apic::write_icr_shorthand(Cpu& sender, DestShorthand which, uint32_t vector, DeliveryMode delivery) {
    ++stats_.register_writes;
    co_await sender.stall(params().icr_write);
    post_shorthand(sender, which, vector, delivery);
}

namespace {

const IntcRegistration<X2apic, X2apicParams> reg_phys(
    "x2apic_phys", "x2APIC, Linux physical destination mode: fence once, one ICR WRMSR per target, no ICR-idle wait",
    {Arch::x86}, x2apic_params_schema);
const IntcRegistration<X2apic, X2apicParams> reg_cluster(
    "x2apic_cluster",
    "x2APIC, Linux cluster (logical) mode: fence once, one ICR WRMSR per 16-CPU cluster (APIC id >> 4)", {Arch::x86},
    x2apic_params_schema);

}  // namespace

}  // namespace ipisim::hw
