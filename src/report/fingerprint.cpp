#include <fmt/format.h>

#include "report/results.h"

namespace ipisim::report {

uint64_t combined_fingerprint(const std::vector<ResultRow>& rows) {
    uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
    for (const ResultRow& row : rows) {
        for (int byte = 0; byte < 8; ++byte) {
            h ^= (row.fingerprint >> (8 * byte)) & 0xffU;
            h *= 0x100000001b3ULL;  // FNV-1a 64 prime
        }
    }
    return h;
}

std::string text_hash(std::string_view text) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    return fingerprint_hex(h);
}

std::string fingerprint_hex(uint64_t fingerprint) {
    return fmt::format("{:016x}", fingerprint);
}

}  // namespace ipisim::report
