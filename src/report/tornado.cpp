#include "report/tornado.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "report/atomic_file.h"
#include "report/plot.h"

namespace ipisim::report {

namespace {

using Json = nlohmann::ordered_json;

// Percent change from nominal, 0 where undefined.
double percent(const Json& v, double nominal) {
    if (!v.is_number() || nominal == 0) return 0;
    return (v.get<double>() - nominal) / std::abs(nominal) * 100.0;
}

std::string params_text(const Json& params) {
    std::string s;
    for (const auto& [k, v] : params.items()) {
        s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v.is_string() ? v.get<std::string>() : v.dump());
    }
    return s;
}

}  // namespace

std::string tornado_script(const Json& q, size_t top, const std::string& svg, const std::string& png) {
    const double nominal = q["nominal"].is_number() ? q["nominal"].get<double>() : 0;
    const size_t n = std::min(top, q["effects"].size());
    std::string data;
    std::string ytics;
    double widest = 0;  // the largest |change| shown, in percent
    for (size_t i = 0; i < n; ++i) {
        const Json& f = q["effects"][i];
        const size_t y = n - i;  // largest on top
        const double lo = percent(f["low"], nominal);
        const double hi = percent(f["high"], nominal);
        widest = std::max({widest, std::abs(lo), std::abs(hi)});
        data += fmt::format("{} {:.6g} {:.6g}\n", y, lo, hi);
        ytics += fmt::format("{}{} {}", ytics.empty() ? "" : ", ", gp_string(f["key"].get<std::string>()), y);
    }
    std::string plot = "$effects << EOD\n" + data + "EOD\n";
    plot += fmt::format("set title {}\n",
                        gp_string(fmt::format("{} at {}\nnominal {:.6g}; bars: cost at the low / high "
                                              "end of its range, the others nominal",
                                              q["name"].get<std::string>(), params_text(q["params"]), nominal)));
    plot += "set xlabel \"change from nominal (%)\"\n";
    // A quantity no cost moves still gets a readable axis (gnuplot refuses an empty range).
    if (widest == 0) plot += "set xrange [-1:1]\nset label 1 \"no ranged cost moves it\" at 0,graph 0.5 center\n";
    plot += fmt::format("set ytics ({})\nset yrange [0.4:{}.6]\n", ytics, n);
    plot += "set grid xtics\nset xzeroaxis lt -1\nset key bottom right\nset style fill solid 0.8 border -1\n";
    plot +=
        "plot $effects using (($2)/2):1:(($2) < 0 ? $2 : 0):(($2) < 0 ? 0 : $2):($1-0.35):($1+0.35) "
        "with boxxyerror lc rgb \"#4477aa\" title \"cost at low end\", \\\n"
        "     $effects using (($3)/2):1:(($3) < 0 ? $3 : 0):(($3) < 0 ? 0 : $3):($1-0.35):($1+0.35) "
        "with boxxyerror lc rgb \"#ee6677\" title \"cost at high end\"\n";
    std::string s = "# ipisim sensitivity: tornado plot (report/tornado.h)\n";
    s += "set terminal svg size 1000,560 dynamic noenhanced font \"sans,12\" background rgb \"white\"\n";
    s += fmt::format("set output {}\n{}", gp_string(svg), plot);
    s += "set terminal pngcairo size 1000,560 noenhanced font \"sans,10\" background rgb \"white\"\n";
    s += fmt::format("set output {}\nreplot\nset output\n", gp_string(png));
    return s;
}

std::string draw_tornado_plots(const Json& sensitivity, const std::filesystem::path& dir, size_t top) {
    std::vector<const Json*> chosen;
    for (const Json& q : sensitivity["quantities"]) {
        if (q.contains("points")) chosen.push_back(&q);
    }
    if (chosen.empty()) {
        size_t last = 0;
        for (const Json& q : sensitivity["quantities"]) last = std::max(last, q.value("point", size_t{0}));
        for (const Json& q : sensitivity["quantities"]) {
            if (q.value("point", size_t{0}) == last) chosen.push_back(&q);
        }
    }
    // Quantities that some cost moves come first: a plot of zero bars says little.
    std::stable_partition(chosen.begin(), chosen.end(), [](const Json* q) {
        return std::any_of((*q)["effects"].begin(), (*q)["effects"].end(),
                           [](const Json& f) { return f["swing"].is_number() && f["swing"].get<double>() != 0; });
    });
    if (chosen.size() > 8) chosen.resize(8);
    if (chosen.empty() || sensitivity["costs"].empty()) return "";
    if (!gnuplot_available()) return "ipisim: warning: gnuplot not found: no tornado plots (install gnuplot-nox)\n";
    std::string warnings;
    for (size_t i = 0; i < chosen.size(); ++i) {
        const std::string stem = fmt::format("tornado_{}", i);
        const std::filesystem::path gp = dir / (stem + ".gp");
        write_file_atomically(gp, tornado_script(*chosen[i], top, stem + ".svg", stem + ".png"));
        try {
            const std::string said = run_gnuplot(gp);
            if (!said.empty()) warnings += fmt::format("ipisim: warning: gnuplot {}: {}", gp.string(), said);
        } catch (const std::exception& e) {
            warnings += fmt::format("ipisim: warning: no tornado plot {}: {}\n", stem, e.what());
        }
    }
    return warnings;
}

}  // namespace ipisim::report
