#include "probe/interrupts.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

namespace ipisim::probe {

std::optional<uint64_t> InterruptCounts::get(const std::string& row) const {
    auto it = total.find(row);
    if (it == total.end()) return std::nullopt;
    return it->second;
}

InterruptCounts parse_interrupts(const std::string& text) {
    InterruptCounts out;
    std::istringstream in(text);
    std::string line;
    size_t ncpus = 0;
    bool header = true;
    while (std::getline(in, line)) {
        if (header) {
            // "           CPU0       CPU1": the number of count columns.
            std::istringstream h(line);
            std::string word;
            while (h >> word) {
                if (word.rfind("CPU", 0) == 0) ++ncpus;
            }
            header = false;
            continue;
        }
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        name.erase(0, name.find_first_not_of(' '));
        std::istringstream fields(line.substr(colon + 1));
        uint64_t sum = 0;
        size_t read = 0;
        std::string word;
        // Rows such as "ERR:  0" have one column; per-CPU rows have ncpus.
        while (read < ncpus && fields >> word) {
            if (word.empty() || !std::isdigit(static_cast<unsigned char>(word[0]))) break;
            sum += std::stoull(word);
            ++read;
        }
        if (read > 0) out.total[name] = sum;
    }
    return out;
}

std::optional<InterruptCounts> read_interrupts(const std::string& path) {
    std::ifstream f(path);
    if (!f) return std::nullopt;
    std::stringstream ss;
    ss << f.rdbuf();
    return parse_interrupts(ss.str());
}

std::optional<uint64_t> delta(const InterruptCounts& before, const InterruptCounts& after, const std::string& row) {
    const auto a = before.get(row);
    const auto b = after.get(row);
    if (!a || !b || *b < *a) return std::nullopt;
    return *b - *a;
}

}  // namespace ipisim::probe
