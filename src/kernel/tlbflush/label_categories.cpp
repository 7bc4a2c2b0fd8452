// Profile categories of labels whose creators do not tag them yet, tagged here by name at
// start-up so that a workload can ask for time by category (hw/cpu/profile.h):
//   - the IPI send loops of the interrupt-controller drivers (hw/intc today; they move to
//     kernel/irqchip, keeping these kernel names): ipi_send;
//   - the RAR microcode's stolen time (hw/tlb/rar.cpp): tlb_invalidation.
// Once a creator passes its category where it makes the label, its line here goes (tagging
// twice with the same category is harmless). A test checks that every name here is one the
// machines actually charge time to (tests/kernel/label_categories_test.cpp).
#include "hw/cpu/profile.h"

namespace ipisim::kernel {

namespace {

struct Tag {
    const char* name;
    hw::LabelCategory category;
};

constexpr Tag kTags[] = {
    {"default_send_IPI_mask_sequence_phys", hw::LabelCategory::ipi_send},
    {"default_send_IPI_single_phys", hw::LabelCategory::ipi_send},
    {"apic_mem_wait_icr_idle", hw::LabelCategory::ipi_send},
    {"__x2apic_send_IPI_mask", hw::LabelCategory::ipi_send},
    {"x2apic_send_IPI", hw::LabelCategory::ipi_send},
    {"default_send_IPI_allbutself", hw::LabelCategory::ipi_send},
    {"default_send_IPI_all", hw::LabelCategory::ipi_send},
    {"x2apic_send_IPI_allbutself", hw::LabelCategory::ipi_send},
    {"x2apic_send_IPI_all", hw::LabelCategory::ipi_send},
    {"gic_ipi_send_mask", hw::LabelCategory::ipi_send},
    {"rar_microcode", hw::LabelCategory::tlb_invalidation},
};

const bool tagged = [] {
    for (const Tag& t : kTags) hw::profile_label(t.name, t.category);
    return true;
}();

}  // namespace

}  // namespace ipisim::kernel
