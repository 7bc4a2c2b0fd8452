// The median and spread of repeated measurements: every figure `ipisim probe` and `ipisim
// validate host` report is one of these (median of N, with min / p5 / p25 / p75 / p95 / max).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ipisim::probe {

struct Spread {
    size_t n = 0;  // 0: nothing was measured
    double min = 0;
    double p5 = 0;
    double p25 = 0;
    double median = 0;
    double p75 = 0;
    double p95 = 0;
    double max = 0;
};

// Quantile q (0..1) of ascending samples, interpolated linearly between order statistics
// (Hyndman-Fan type 7, as numpy's default). `sorted` must not be empty.
double quantile(const std::vector<double>& sorted, double q);

// Summary of the samples (any order). No samples: n == 0.
Spread summarize(std::vector<double> samples);

// "23.1 (min 20.0, p25 22.0, p75 24.5, max 30.1; N=7)" with `digits` decimals and the unit
// after the median ("23.1 ns (...)").
std::string spread_text(const Spread& s, const std::string& unit, int digits = 1);

}  // namespace ipisim::probe
