// Profile categories of the cross-call layer and the interrupt-controller send loops: every
// label a cross call charges time to, on the sender and on the targets, is tagged, on each
// kind of controller. The send loops are tagged by name (kernel/tlbflush/label_categories.cpp):
// a send-loop label renamed or added without its category fails here.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hw/cpu/profile.h"
#include "kernel/costs.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using hw::Cpu;
using hw::LabelCategory;

namespace {

// Labels with time on any CPU that carry no category, except `allowed`.
std::set<std::string> untagged_labels(test::KernelWorld& w, const std::set<std::string>& allowed) {
    std::set<std::string> out;
    for (hw::CpuId c = 0; c < w.plat->nr_cpus(); ++c) {
        hw::CpuProfile& prof = w.plat->cpu(c).profile();
        prof.settle(w.eng.now());
        for (uint32_t l = 0; l < prof.nr_labels(); ++l) {
            if (prof.time_in_label(l) == sim::Picos::zero()) continue;
            const std::string& name = hw::profile_label_name(l);
            if (allowed.count(name) == 0 && hw::profile_label_category(l) == LabelCategory::none) out.insert(name);
        }
    }
    return out;
}

// CPU 0, inside the function labelled `caller`, makes a synchronous single call to CPU 1, then
// one to every other CPU; the run ends when they are done.
void run_cross_calls(test::KernelWorld& w, uint32_t caller) {
    w.k->run_on(0, [&w, caller](Cpu& cpu) -> sim::Task<> {
        auto scope = cpu.function(caller, hw::Activity::kernel);
        kernel::SmpCallFunc func = [](Cpu& c) -> sim::Task<> {
            co_await c.compute_cycles(kernel::costs::empty_function);
        };
        EXPECT_EQ(co_await w.k->smp().smp_call_function_single(cpu, 1, func, true), 0);
        hw::CpuMask others = hw::CpuMask::all(w.plat->nr_cpus());
        others.clear(0);
        co_await w.k->smp().smp_call_function_many(cpu, others, func, true);
        w.eng.stop();
    });
    w.k->boot();
    w.eng.run();
}

}  // namespace

TEST(LabelCategories, every_label_a_cross_call_charges_is_tagged_on_every_kind_of_interrupt_controller) {
    for (const char* machine : {"toy2", "toy4", "toy8", "toy4_arm"}) {
        test::KernelWorld w(machine);
        const uint32_t caller = hw::profile_label("label_categories_test.caller");
        sim::Picos ipi_send_time;
        run_cross_calls(w, caller);
        EXPECT_EQ(untagged_labels(w, {"(none)", "cpuidle", "label_categories_test.caller"}), std::set<std::string>{})
            << machine;
        const hw::CpuProfile& prof = w.plat->cpu(0).profile();
        for (uint32_t l = 0; l < prof.nr_labels(); ++l) {
            if (prof.time_in_label(l) == sim::Picos::zero()) continue;
            if (hw::profile_label_category(l) == LabelCategory::ipi_send) ipi_send_time += prof.time_in_label(l);
        }
        EXPECT_GT(ipi_send_time, sim::Picos::zero()) << machine << ": the send loop's time is tagged ipi_send";
    }
}

// The targets' IRQ time is charged to the kernel's handler of each architecture: x86's two IDT
// entry points, arm64's ipi_handler() (one IPI_CALL_FUNC for both sends).
TEST(LabelCategories, the_call_function_handler_has_its_architectures_kernel_name) {
    for (const auto& [machine, names] : std::vector<std::pair<const char*, std::set<std::string>>>{
             {"toy4", {"sysvec_call_function_single", "sysvec_call_function"}}, {"toy4_arm", {"ipi_handler"}}}) {
        test::KernelWorld w(machine);
        run_cross_calls(w, hw::profile_label("label_categories_test.caller"));
        hw::CpuProfile& prof = w.plat->cpu(1).profile();
        prof.settle(w.eng.now());
        std::set<std::string> irq_labels;
        for (uint32_t l = 0; l < prof.nr_labels(); ++l) {
            if (prof.time(l, hw::Activity::irq) > sim::Picos::zero()) irq_labels.insert(hw::profile_label_name(l));
        }
        for (const std::string& n : names) EXPECT_EQ(irq_labels.count(n), 1U) << machine << ": " << n;
        for (const char* x86_only : {"sysvec_call_function_single", "sysvec_call_function"}) {
            if (names.count(x86_only) == 0) {
                EXPECT_EQ(irq_labels.count(x86_only), 0U) << machine << ": " << x86_only;
            }
        }
    }
}
