// A Linux kernel version ("6.13", "5.17.2", "6.18-rc1" -> 6.13, 5.17, 6.18): behaviours that
// changed between kernels are gated on it ([kernel] version of an experiment).
//
//   const kernel::Version v = *kernel::Version::parse("6.13");
//   if (v >= kernel::Version{6, 9}) batch = 31;   // "mm: increase folio batch size"
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ipisim::kernel {

struct Version {
    uint32_t major = 0;
    uint32_t minor = 0;

    constexpr auto operator<=>(const Version&) const = default;

    // "MAJOR.MINOR" optionally followed by ".PATCH" or "-suffix"; nullopt otherwise.
    static std::optional<Version> parse(std::string_view text);
    [[nodiscard]] std::string text() const;
};

// The kernels the model knows. Oldest: the x86 flush path it runs (flush_tlb_multi() running
// the local flush beside the remote ones, Nadav Amit's "x86/mm/tlb: Flush remote and local TLBs
// concurrently", v5.12) and rwsem readers that do not spin ("locking/rwsem: Remove reader
// optimistic spinning", v5.11) are ungated. Newest: the last kernel whose changes to these paths
// were read (docs/mechanisms.md); a later kernel may have changed them. An experiment's version
// must lie in between (kernel_config.cpp); a host's release outside it is modelled as the nearest
// bound, and the report says so (cli/validate_model.h: model_kernel_version, model_kernel_note).
inline constexpr Version kOldestModeled{5, 12};
inline constexpr Version kNewestModeled{6, 18};

// Why `v` is outside [kOldestModeled, kNewestModeled], or "" when it is inside.
[[nodiscard]] std::string unmodeled_version(Version v);

}  // namespace ipisim::kernel
