#include "probe/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ipisim::probe {

double quantile(const std::vector<double>& sorted, double q) {
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Spread summarize(std::vector<double> samples) {
    Spread s;
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    s.n = samples.size();
    s.min = samples.front();
    s.max = samples.back();
    s.p5 = quantile(samples, 0.05);
    s.p25 = quantile(samples, 0.25);
    s.median = quantile(samples, 0.5);
    s.p75 = quantile(samples, 0.75);
    s.p95 = quantile(samples, 0.95);
    return s;
}

std::string spread_text(const Spread& s, const std::string& unit, int digits) {
    if (s.n == 0) return "(not measured)";
    const std::string u = unit.empty() ? "" : " " + unit;
    return fmt::format("{:.{}f}{} (min {:.{}f}, p25 {:.{}f}, p75 {:.{}f}, max {:.{}f}; N={})", s.median, digits, u,
                       s.min, digits, s.p25, digits, s.p75, digits, s.max, digits, s.n);
}

}  // namespace ipisim::probe
