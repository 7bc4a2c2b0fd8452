// /proc/interrupts parsing: rows summed over the CPU columns, for per-operation deltas.
#include "probe/interrupts.h"

#include <gtest/gtest.h>

namespace ipisim::probe {
namespace {

const char* const kText =
    "           CPU0       CPU1       \n"
    " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
    " 36:          0      47875 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:     190179     199642   Local timer interrupts\n"
    "CAL:      27005      34068   Function call interrupts\n"
    "TLB:       3938       3560   TLB shootdowns\n"
    "ERR:          0\n"
    "MIS:          0\n";

TEST(ProbeInterrupts, rows_are_summed_over_the_cpu_columns) {
    const InterruptCounts c = parse_interrupts(kText);
    EXPECT_EQ(c.get("TLB"), 3938U + 3560U);
    EXPECT_EQ(c.get("CAL"), 27005U + 34068U);
    EXPECT_EQ(c.get("LOC"), 190179U + 199642U);
    EXPECT_EQ(c.get("36"), 47875U);
}

TEST(ProbeInterrupts, single_column_rows_and_descriptions_are_not_counts) {
    const InterruptCounts c = parse_interrupts(kText);
    EXPECT_EQ(c.get("ERR"), 0U);
    EXPECT_EQ(c.get("24"), 1U);  // "5-edge" in the description is not a third column
    EXPECT_FALSE(c.get("RES").has_value());
}

TEST(ProbeInterrupts, delta_is_after_minus_before_and_absent_rows_have_none) {
    const InterruptCounts before = parse_interrupts("CPU0 CPU1\nTLB: 10 20 TLB shootdowns\n");
    const InterruptCounts after = parse_interrupts("CPU0 CPU1\nTLB: 15 26 TLB shootdowns\n");
    EXPECT_EQ(delta(before, after, "TLB"), 11U);
    EXPECT_FALSE(delta(before, after, "CAL").has_value());
}

}  // namespace
}  // namespace ipisim::probe
