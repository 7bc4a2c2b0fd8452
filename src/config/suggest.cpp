#include "config/suggest.h"

#include <algorithm>
#include <cctype>

namespace ipisim::config {

namespace {

char lower(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool starts_with_ignoring_case(std::string_view s, std::string_view prefix) {
    if (prefix.size() > s.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
        if (lower(s[i]) != lower(prefix[i])) return false;
    }
    return true;
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
    // d[i][j]: distance between a[0..i) and b[0..j), three rows kept.
    std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
                cur[j] = std::min(cur[j], prev2[j - 2] + 1);
            }
        }
        prev2.swap(prev);
        prev.swap(cur);
    }
    return prev[b.size()];
}

std::vector<std::string> suggestions(std::string_view name, const std::vector<std::string>& known) {
    if (name.empty()) return {};
    const size_t limit = std::clamp<size_t>(name.size() / 3, 1, 3);
    struct Candidate {
        size_t distance;
        size_t order;
    };
    std::vector<Candidate> close;
    for (size_t i = 0; i < known.size(); ++i) {
        if (known[i] == name) continue;
        const size_t d = edit_distance(name, known[i]);
        if (d <= limit && d < name.size()) {  // rewriting the whole name is no typo ("b" for "a")
            close.push_back({d, i});
        } else if (name.size() >= 3 && starts_with_ignoring_case(known[i], name)) {
            close.push_back({limit + 1, i});
        }
    }
    std::stable_sort(close.begin(), close.end(),
                     [](const Candidate& x, const Candidate& y) { return x.distance < y.distance; });
    std::vector<std::string> out;
    for (const Candidate& c : close) {
        if (out.size() == 3) break;
        if (std::find(out.begin(), out.end(), known[c.order]) == out.end()) out.push_back(known[c.order]);
    }
    return out;
}

std::string suggestion(std::string_view name, const std::vector<std::string>& known) {
    const std::vector<std::string> s = suggestions(name, known);
    return s.empty() ? std::string() : s.front();
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& known) {
    const std::vector<std::string> s = suggestions(name, known);
    if (s.empty()) return "";
    std::string out = " (did you mean " + s[0];
    for (size_t i = 1; i < s.size(); ++i) out += (i + 1 == s.size() ? " or " : ", ") + s[i];
    return out + "?)";
}

}  // namespace ipisim::config
