#include "config/names.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace ipisim::config {

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string listed(const std::vector<std::string>& names) {
    return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<std::string> placeholders(const std::string& tmpl) {
    std::vector<std::string> out;
    size_t open = tmpl.find('{');
    while (open != std::string::npos) {
        const size_t close = tmpl.find('}', open);
        if (close == std::string::npos) break;
        out.push_back(tmpl.substr(open + 1, close - open - 1));
        open = tmpl.find('{', close);
    }
    return out;
}

}  // namespace ipisim::config
