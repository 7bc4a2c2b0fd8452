// [kernel]: read through its schema; defaults follow the version; checked against the machine.
#include <gtest/gtest.h>

#include "config/error.h"
#include "kernel/kernel_config.h"
#include "kernel/mm/mm.h"
#include "support/kernel_world.h"

namespace ipisim::kernel {
namespace {

KernelConfig read(const std::string& text, const std::string& machine = "toy4") {
    const config::Document doc = config::Document::parse(text, "k.toml");
    config::Table t = doc.root();
    const hw::MachineSpec spec = test::load_test_machine(machine);
    return read_kernel_config(t, MachineInfo(spec));
}

std::string error_of(const std::string& text, const std::string& machine = "toy4") {
    try {
        read(text, machine);
    } catch (const config::ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(KernelConfig, the_defaults_follow_the_version) {
    const KernelConfig k512 = read("version = \"5.12\"\n");
    EXPECT_EQ(k512.resctrl_dispatch, MonDispatch::call_any);
    EXPECT_TRUE(k512.madvise_lru_add_drain);
    EXPECT_EQ(k512.call_any_policy, CallAnyPolicy::same_node);
    const KernelConfig k612 = read("version = \"6.12\"\n");
    EXPECT_EQ(k612.resctrl_dispatch, MonDispatch::call_on_cpu);
    EXPECT_TRUE(k612.madvise_lru_add_drain);
    const KernelConfig k618 = read("version = \"6.18-rc1\"\n");
    EXPECT_FALSE(k618.madvise_lru_add_drain);
    EXPECT_EQ(k618.call_any_policy, CallAnyPolicy::nearest_node);
    EXPECT_EQ(k618.parsed_version(), (Version{6, 18}));
    EXPECT_EQ(k618.hz, 250U);
    EXPECT_EQ(k618.tlb_flush, "ipi");
    // The per-VMA lock: faults from 6.4 (CONFIG_PER_VMA_LOCK), MADV_DONTNEED from 6.17.
    EXPECT_EQ(read("version = \"6.3\"\n").fault_lock, mm::MmLock::mmap_lock);
    EXPECT_EQ(read("version = \"6.4\"\n").fault_lock, mm::MmLock::vma_lock);
    EXPECT_EQ(read("version = \"6.16\"\n").madvise_lock, mm::MmLock::mmap_lock);
    EXPECT_EQ(k618.madvise_lock, mm::MmLock::vma_lock);
    EXPECT_EQ(k618.fault_lock, mm::MmLock::vma_lock);
    // PAGEVEC_SIZE 15 -> 31 in 6.9 (9cecde80aae0); the unit tests' kernels keep 15.
    EXPECT_EQ(read("version = \"6.8\"\n").folio_batch_size, 15U);
    EXPECT_EQ(read("version = \"6.9\"\n").folio_batch_size, 31U);
    EXPECT_EQ(KernelConfig{}.folio_batch_size, mm::PAGEVEC_SIZE);
    EXPECT_EQ(read("version = \"5.17\"\n", "toy4_arm").gic_barrier, kernel::irqchip::GicIpiBarrier::wmb);
    EXPECT_EQ(read("version = \"5.18\"\n", "toy4_arm").gic_barrier, kernel::irqchip::GicIpiBarrier::dsb_ishst);
}

TEST(KernelConfig, a_value_given_wins_over_the_versions_default) {
    EXPECT_EQ(read("version = \"6.12\"\nresctrl_dispatch = \"call_any\"\n").resctrl_dispatch, MonDispatch::call_any);
}

TEST(KernelConfig, mistakes_are_located_at_their_key) {
    EXPECT_EQ(error_of("version = \"six\"\n"),
              "k.toml:1: version: expected a kernel version like \"6.13\", got \"six\"");
    EXPECT_EQ(error_of("version = \"9.99\"\n")
                  .rfind("k.toml:1: version: Linux 9.99 is newer than the newest kernel the model knows, 6.18", 0),
              0U);
    EXPECT_EQ(error_of("version = \"4.19.316\"\n")
                  .rfind("k.toml:1: version: Linux 4.19 is older than the oldest kernel the model knows, 5.12", 0),
              0U);
    EXPECT_EQ(error_of("version = \"6.1\"\nhz = 200\n"),
              "k.toml:2: hz: must be 100, 250, 300 or 1000 (CONFIG_HZ_*), got 200");
    EXPECT_NE(error_of("version = \"6.9\"\nfolio_batch_size = 0\n").find("k.toml:2: folio_batch_size"),
              std::string::npos);
    EXPECT_NE(error_of("version = \"6.9\"\nfolio_batch_size = 256\n").find("k.toml:2: folio_batch_size"),
              std::string::npos);
    EXPECT_EQ(error_of("version = \"6.1\"\ncolour = 1\n"), "k.toml:2: colour: unknown key");
    EXPECT_EQ(error_of("version = \"6.1\"\ngic_barrier = \"wmb\"\n"),
              "k.toml:2: gic_barrier: only meaningful when gicv3");
    EXPECT_EQ(error_of("version = \"6.1\"\ntlb_flush = \"ipi\"\n", "toy4_arm"),
              "k.toml:2: tlb_flush: only meaningful when x86");
}

TEST(KernelConfig, skew_tick_is_a_boot_option_off_by_default_on_every_architecture) {
    EXPECT_FALSE(read("version = \"6.6\"\n").skew_tick);
    EXPECT_TRUE(read("version = \"6.6\"\nskew_tick = true\n").skew_tick);
    EXPECT_TRUE(read("version = \"5.17\"\nskew_tick = true\n", "toy4_arm").skew_tick);
    EXPECT_EQ(error_of("version = \"6.6\"\nskew_tick = 1\n"),
              "k.toml:2: skew_tick: expected a boolean, got an integer");
}

TEST(KernelConfig, no_ipi_broadcast_is_an_x86_boot_option_off_by_default) {
    EXPECT_FALSE(read("version = \"6.6\"\n").no_ipi_broadcast);
    EXPECT_TRUE(read("version = \"6.6\"\nno_ipi_broadcast = true\n").no_ipi_broadcast);
    EXPECT_EQ(error_of("version = \"6.6\"\nno_ipi_broadcast = true\n", "toy4_arm"),
              "k.toml:2: no_ipi_broadcast: only meaningful when x86");
    EXPECT_EQ(error_of("version = \"6.6\"\nno_ipi_broadcast = 1\n"),
              "k.toml:2: no_ipi_broadcast: expected a boolean, got an integer");
}

TEST(KernelConfig, the_kernel_turns_the_ipi_shorthand_off_for_no_ipi_broadcast) {
    const auto key = [](const std::string& version, bool no_ipi_broadcast) {
        KernelConfig c;
        c.version = version;
        c.no_ipi_broadcast = no_ipi_broadcast;
        test::KernelWorld w("toy4", c);
        return w.k->irqchip().config().apic_use_ipi_shorthand;
    };
    EXPECT_TRUE(key("6.6", false));
    EXPECT_FALSE(key("6.6", true));
    EXPECT_TRUE(key("5.12", false));
    EXPECT_TRUE(key("", false));
}

TEST(KernelConfig, a_flush_protocol_the_machine_lacks_is_an_error_at_its_key) {
    EXPECT_EQ(error_of("version = \"6.15\"\ntlb_flush = \"invlpgb\"\n", "sapphire_rapids_30c"),
              "k.toml:2: tlb_flush: \"invlpgb\" on machine sapphire_rapids_30c: needs a machine with INVLPGB "
              "(tlb.invlpgb_count_max > 0)");
    EXPECT_EQ(error_of("version = \"6.15\"\ntlb_flush = \"rar-optimized\"\n", "milan_36c"),
              "k.toml:2: tlb_flush: \"rar-optimized\" on machine milan_36c: needs a machine with RAR "
              "(tlb.rar_payloads > 0)");
    EXPECT_EQ(error_of("version = \"6.15\"\ntlb_flush = \"invlpgb\"\n", "milan_36c"), "");
}

TEST(KernelConfig, the_kernel_applies_its_configuration_to_its_subsystems) {
    KernelConfig c;
    c.version = "6.18";
    c.hz = 1000;
    c.madvise_lru_add_drain = false;
    c.tlb_flush = "invlpgb";
    test::KernelWorld w("toy4", c);
    EXPECT_EQ(w.k->version(), (Version{6, 18}));
    EXPECT_EQ(w.k->mm().hz(), 1000U);
    EXPECT_EQ(w.k->mm().jiffies(), 0U);
    EXPECT_TRUE(w.k->mm().broadcast_tlb_flush());  // the INVLPGB protocol attached
}

TEST(KernelConfig, its_schema_is_in_the_catalog) {
    ASSERT_EQ(config::schema_catalog().count("kernel"), 1U);
    const config::SchemaInfo info = config::schema_catalog().at("kernel")();
    ASSERT_FALSE(info.params.empty());
    EXPECT_EQ(info.params.front().key, "version");
    EXPECT_TRUE(info.params.front().required);
}

}  // namespace
}  // namespace ipisim::kernel
