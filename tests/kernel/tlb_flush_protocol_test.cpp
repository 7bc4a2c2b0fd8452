// What every registered TLB flush protocol tells the mm layer before it runs: whether a
// machine can run it (machine_support, refused at Mm construction with the same reason) and
// its global-ASID flavour, which decides the mm layer's global-ASID behaviour.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "kernel/mm/mm.h"
#include "sim/registry.h"
#include "support/kernel_world.h"
#include "support/paths.h"

using namespace ipisim;
using kernel::GlobalAsidFlavour;

namespace {

const std::string kMachines = ipisim::test::source_path("machines");

std::string support(const std::string& protocol, const std::string& machine) {
    return kernel::make_tlb_flush_protocol(protocol)->machine_support(hw::load_machine_by_name(kMachines, machine));
}

}  // namespace

TEST(TlbFlushProtocol, every_protocol_on_every_shipped_machine_builds_its_mm_exactly_when_it_supports_the_machine) {
    for (const auto* entry : sim::Registry<kernel::TlbFlushProtocol>::instance().entries()) {
        for (const std::string& machine : hw::list_machines(kMachines)) {
            test::KernelWorld w(hw::load_machine_by_name(kMachines, machine));
            const std::string why = entry->factory()->machine_support(w.spec);
            if (why.empty()) {
                EXPECT_NO_THROW(kernel::mm::Mm(*w.k, entry->name)) << entry->name << " on " << machine;
                continue;
            }
            try {
                kernel::mm::Mm mm(*w.k, entry->name);
                ADD_FAILURE() << entry->name << " on " << machine << ": no error although \"" << why << "\"";
            } catch (const std::invalid_argument& e) {
                EXPECT_EQ(std::string(e.what()),
                          "tlb_flush \"" + entry->name + "\" on machine " + machine + ": " + why);
            }
        }
    }
}

TEST(TlbFlushProtocol, each_protocol_names_what_a_machine_lacks) {
    EXPECT_EQ(support("ipi", "sapphire_rapids_30c"), "");
    EXPECT_EQ(support("ipi", "kunpeng920"), "needs an x86 machine (it runs arch/x86/mm/tlb.c)");
    EXPECT_EQ(support("invlpgb", "milan_36c"), "");
    EXPECT_EQ(support("invlpgb", "sapphire_rapids_30c"), "needs a machine with INVLPGB (tlb.invlpgb_count_max > 0)");
    EXPECT_EQ(support("invlpgb", "toy4_arm"), "needs an x86 machine (it runs arch/x86/mm/tlb.c)");
    for (const char* rar : {"rar-naive", "rar-optimized", "rar-grouped"}) {
        EXPECT_EQ(support(rar, "sapphire_rapids_30c"), "") << rar;
        EXPECT_EQ(support(rar, "milan_36c"), "needs a machine with RAR (tlb.rar_payloads > 0)") << rar;
    }
}

TEST(TlbFlushProtocol, the_mm_layer_has_global_asids_exactly_when_the_protocol_says_so) {
    const struct {
        const char* protocol;
        GlobalAsidFlavour flavour;
    } cases[] = {{"ipi", GlobalAsidFlavour::none},
                 {"invlpgb", GlobalAsidFlavour::every_cpu},
                 {"rar-naive", GlobalAsidFlavour::mm_cpumask},
                 {"rar-optimized", GlobalAsidFlavour::mm_cpumask},
                 {"rar-grouped", GlobalAsidFlavour::mm_cpumask}};
    for (const auto& c : cases) {
        test::KernelWorld w("toy4");
        kernel::mm::Mm mm(*w.k, c.protocol);
        EXPECT_EQ(mm.protocol().global_asid_flavour(), c.flavour) << c.protocol;
        EXPECT_EQ(mm.global_asid_flavour(), c.flavour) << c.protocol;
        const bool global = c.flavour != GlobalAsidFlavour::none;
        EXPECT_EQ(mm.broadcast_tlb_flush(), global) << c.protocol;
        // Every mm, init_mm included, has its context.global_asid line exactly then.
        EXPECT_EQ(mm.init_mm().global_asid != nullptr, global) << c.protocol;
        EXPECT_EQ(mm.mm_alloc(0).global_asid != nullptr, global) << c.protocol;
    }
}
