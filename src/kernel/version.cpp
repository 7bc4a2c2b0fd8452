#include "kernel/version.h"

#include <fmt/format.h>

#include <charconv>

namespace ipisim::kernel {

namespace {

// Reads a decimal number at text[pos..]; advances pos.
std::optional<uint32_t> number(std::string_view text, size_t& pos) {
    uint32_t v = 0;
    const char* begin = text.data() + pos;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr == begin || v > 1000) return std::nullopt;
    pos += static_cast<size_t>(ptr - begin);
    return v;
}

}  // namespace

std::optional<Version> Version::parse(std::string_view text) {
    size_t pos = 0;
    const std::optional<uint32_t> major = number(text, pos);
    if (!major || pos >= text.size() || text[pos] != '.') return std::nullopt;
    ++pos;
    const std::optional<uint32_t> minor = number(text, pos);
    if (!minor) return std::nullopt;
    if (pos < text.size() && text[pos] == '.') {
        ++pos;
        if (!number(text, pos)) return std::nullopt;
    }
    if (pos < text.size() && text[pos] != '-') return std::nullopt;
    if (pos < text.size() && pos + 1 == text.size()) return std::nullopt;  // a bare "-"
    return Version{*major, *minor};
}

std::string Version::text() const {
    return fmt::format("{}.{}", major, minor);
}

std::string unmodeled_version(Version v) {
    if (v < kOldestModeled) {
        return fmt::format(
            "Linux {} is older than the oldest kernel the model knows, {} (its x86 flush runs the local "
            "flush beside the remote ones, as from v5.12)",
            v.text(), kOldestModeled.text());
    }
    if (v > kNewestModeled) {
        return fmt::format(
            "Linux {} is newer than the newest kernel the model knows, {}: later changes to the modelled paths "
            "have not been read (\"{}\" models it with that kernel's behaviour)",
            v.text(), kNewestModeled.text(), kNewestModeled.text());
    }
    return "";
}

}  // namespace ipisim::kernel
