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

}  // namespace ipisim::kernel
