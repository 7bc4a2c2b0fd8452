#include "report/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "config/names.h"
#include "report/shape_json.h"
#include "report/text_table.h"

namespace ipisim::report {

std::string gp_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

namespace {

using config::contains;
using config::placeholders;

// Colour-blind-safe (Okabe-Ito).
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr size_t kMaxFallbackMetrics = 8;

bool numeric_metric(const ExperimentResults& r, const std::string& m) {
    bool any = false;
    for (const ResultRow& row : r.rows) {
        if (!row.metrics.contains(m)) continue;
        if (!row.metrics[m].is_number() || row.metrics[m].is_boolean()) return false;
        any = true;
    }
    return any;
}

// A metric that is 0 at every point, with no published value, has nothing to plot: gnuplot
// would draw an empty y range and warn.
bool zero_everywhere(const ExperimentResults& r, const std::string& m) {
    for (const ResultRow& row : r.rows) {
        if (row.metrics.contains(m) && row.metrics[m].get<double>() != 0.0) return false;
        if (row.published.contains(m)) return false;
    }
    return true;
}

std::vector<std::string> headline_metrics(const ExperimentResults& r, const SeedShape& shape) {
    std::vector<std::string> all;
    for (const ResultRow& row : r.rows) {
        for (const auto& [k, v] : row.metrics.items()) {
            if (!contains(all, k)) all.push_back(k);
        }
    }
    std::vector<std::string> out;
    auto add = [&](const std::string& m) {
        if (contains(all, m) && !contains(out, m) && numeric_metric(r, m) && !zero_everywhere(r, m)) {
            out.push_back(m);
        }
    };
    if (shape.kind == SeedShape::Kind::pivot) add(shape.value);
    if (out.empty() && shape.kind == SeedShape::Kind::lines) {
        for (const auto& p : placeholders(shape.line)) add(p);
    }
    if (out.empty()) {
        for (const ResultRow& row : r.rows) {
            for (const auto& [k, v] : row.published.items()) add(k);
        }
    }
    if (out.empty()) {
        for (const auto& m : all) {
            if (out.size() < kMaxFallbackMetrics) add(m);
        }
    }
    return out;
}

bool numeric_param(const ExperimentResults& r, const std::string& key) {
    for (const ResultRow& row : r.rows) {
        const auto& v = row.params.value(key, nlohmann::ordered_json());
        if (!v.is_number() || v.is_boolean()) return false;
    }
    return !r.rows.empty();
}

std::vector<double> distinct_sorted(const ExperimentResults& r, const std::string& key) {
    std::vector<double> v;
    for (const ResultRow& row : r.rows) v.push_back(row.params[key].get<double>());
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

bool geometric(const std::vector<double>& v) {
    if (v.size() < 3 || v.front() <= 0 || v.back() / v.front() < 32) return false;
    std::vector<double> ratios;
    for (size_t i = 1; i < v.size(); ++i) ratios.push_back(v[i] / v[i - 1]);
    std::sort(ratios.begin(), ratios.end());
    return ratios[ratios.size() / 2] >= 1.8;
}

// "flush=ipi", "k=v k2=v2": the legend says which parameter each line stands for.
std::string series_name(const ResultRow& row, const std::vector<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) {
        out +=
            fmt::format("{}{}={}", out.empty() ? "" : " ", k, cell_text(row.params.value(k, nlohmann::ordered_json())));
    }
    return out;
}

// What is drawn: shares in percent, other values divided by the axis scale.
struct Axis {
    double scale = 1;
    std::string unit;  // "k", "M", "%"
};

double plotted(const Axis& a, double v) {
    return v / a.scale;
}

// The seed table's own scale for its value ("k"), else the power of 1000 that keeps the
// largest value under 1000 ("M" for loops/s in the millions), percent for shares.
Axis axis_for(const ExperimentResults& r, const PlotSpec& spec, double ymax) {
    if (is_share(spec.metric)) return {0.01, "%"};
    const SeedShape shape = shape_from_json(r.report);
    if (shape.kind == SeedShape::Kind::pivot && shape.value == spec.metric && shape.scale != 1) {
        return {shape.scale, shape.suffix};
    }
    static constexpr const char* kUnit[] = {"", "thousands", "millions", "billions", "10^12"};
    Axis a;
    for (size_t k = 1; k < std::size(kUnit) && ymax >= 1000 * a.scale; ++k) {
        a.scale *= 1000;
        a.unit = kUnit[k];
    }
    return a;
}

struct Series {
    std::string name;
    std::vector<const ResultRow*> rows;
};

}  // namespace

std::vector<PlotSpec> plan_plots(const ExperimentResults& r) {
    std::vector<PlotSpec> out;
    if (r.rows.empty()) return out;
    const SeedShape shape = shape_from_json(r.report);
    std::string x;
    if (shape.kind == SeedShape::Kind::pivot && contains(r.swept, shape.rows)) x = shape.rows;
    for (const auto& k : r.swept) {
        if (x.empty() && numeric_param(r, k) && distinct_sorted(r, k).size() > 1) x = k;
    }
    if (x.empty() && !r.swept.empty()) x = r.swept.front();
    std::vector<std::string> series_keys;
    for (const auto& k : r.swept) {
        if (k != x) series_keys.push_back(k);
    }
    // A pivot's columns are its variants: name them first.
    if (shape.kind == SeedShape::Kind::pivot && contains(series_keys, shape.columns)) {
        std::stable_partition(series_keys.begin(), series_keys.end(),
                              [&](const std::string& k) { return k == shape.columns; });
    }
    const bool numeric_x = !x.empty() && numeric_param(r, x);
    const bool log_x = numeric_x && geometric(distinct_sorted(r, x));
    for (const auto& m : headline_metrics(r, shape)) {
        PlotSpec s;
        s.metric = m;
        s.x = x;
        s.series_keys = series_keys;
        s.numeric_x = numeric_x;
        s.log_x = log_x;
        s.title = shape.kind == SeedShape::Kind::pivot && m == shape.value && !shape.title.empty()
                      ? shape.title
                      : (r.description.empty() ? r.experiment : r.description);
        s.stem = "plot_" + m;
        out.push_back(std::move(s));
    }
    return out;
}

// The value over each bar, and beside every bar after a series' first its difference from that
// first one ("268.2 (-2.1%)"): two bars a few percent apart look equal on an axis from zero.
template <typename XOf>
std::string bar_labels(const Axis& axis, const std::string& metric, const Series& series, size_t i, const XOf& x_of) {
    std::string s = fmt::format("$label{} << EOD\n", i);
    double first = 0;
    for (size_t k = 0; k < series.rows.size(); ++k) {
        const ResultRow& row = *series.rows[k];
        const double v = row.metrics[metric].get<double>();
        std::string text = fmt::format("{:.4g}", plotted(axis, v));
        if (k == 0) {
            first = v;
        } else if (first != 0) {
            text += fmt::format(" ({:+.1f}%)", (v / first - 1) * 100);
        }
        s += fmt::format("{} {} {}\n", x_of(row, i), plotted(axis, v), gp_string(text));
    }
    return s + "EOD\n";
}

std::string gnuplot_script(const ExperimentResults& r, const PlotSpec& spec, const std::string& svg,
                           const std::string& png) {
    // Variants in first-seen order; x categories in first-seen order.
    std::vector<Series> series;
    std::vector<std::string> categories;
    double ymax = 0;  // in the metric's unit
    bool negative = false;
    for (const ResultRow& row : r.rows) {
        if (!row.metrics.contains(spec.metric)) continue;
        const std::string name = series_name(row, spec.series_keys);
        auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) { return s.name == name; });
        if (it == series.end()) it = series.insert(series.end(), Series{name, {}});
        it->rows.push_back(&row);
        const std::string cat = spec.x.empty() ? "" : cell_text(row.params.value(spec.x, nlohmann::ordered_json()));
        if (!contains(categories, cat)) categories.push_back(cat);
        std::vector<double> values = {row.metrics[spec.metric].get<double>()};
        if (row.published.contains(spec.metric)) values.push_back(row.published[spec.metric].get<double>());
        if (row.metrics_interval.contains(spec.metric)) values.push_back(row.metrics_interval[spec.metric].at(1));
        for (double v : values) {
            ymax = std::max(ymax, std::abs(v));
            negative = negative || v < 0;
        }
    }
    const Axis axis = axis_for(r, spec, ymax);
    const size_t n = series.size();
    const double width = 0.8 / static_cast<double>(std::max<size_t>(n, 1));
    auto x_of = [&](const ResultRow& row, size_t i) {
        if (spec.numeric_x) return fmt::format("{}", row.params[spec.x].get<double>());
        const std::string cat = spec.x.empty() ? "" : cell_text(row.params.value(spec.x, nlohmann::ordered_json()));
        const auto pos = static_cast<double>(std::find(categories.begin(), categories.end(), cat) - categories.begin());
        return fmt::format("{}", pos + (static_cast<double>(i) - static_cast<double>(n - 1) / 2.0) * width);
    };

    std::string s = "# ipisim plot: re-render with `gnuplot THIS_FILE`, or `ipisim plot DIR`\n";
    for (size_t i = 0; i < n; ++i) {
        s += fmt::format("$pred{} << EOD\n", i);
        for (const ResultRow* row : series[i].rows) {
            std::string line =
                fmt::format("{} {}", x_of(*row, i), plotted(axis, row->metrics[spec.metric].get<double>()));
            if (row->metrics_interval.contains(spec.metric)) {
                const auto& iv = row->metrics_interval[spec.metric];
                line +=
                    fmt::format(" {} {}", plotted(axis, iv.at(0).get<double>()), plotted(axis, iv.at(1).get<double>()));
            }
            s += line + "\n";
        }
        s += "EOD\n";
        s += fmt::format("$pub{} << EOD\n", i);
        for (const ResultRow* row : series[i].rows) {
            if (row->published.contains(spec.metric)) {
                s += fmt::format("{} {}\n", x_of(*row, i), plotted(axis, row->published[spec.metric].get<double>()));
            }
        }
        s += "EOD\n";
        if (!spec.numeric_x) s += bar_labels(axis, spec.metric, series[i], i, x_of);
    }
    const std::string subtitle = fmt::format("{}{}", r.experiment, r.machine.empty() ? "" : " on " + r.machine);
    s += fmt::format("set title {}\n", gp_string(spec.title + "\n" + subtitle));
    s += fmt::format("set xlabel {}\n", gp_string(spec.x));
    s += fmt::format("set ylabel {}\n", gp_string(spec.metric + (axis.unit.empty() ? "" : " (" + axis.unit + ")")));
    bool any_pub = false;
    for (const ResultRow& row : r.rows) any_pub = any_pub || row.published.contains(spec.metric);
    size_t longest = 0;
    for (const Series& se : series) longest = std::max(longest, se.name.size() + (any_pub ? 12 : 0));
    // gnuplot's svg terminal overestimates the width of long key texts (by ~a fifth): give some
    // back there. The pngcairo terminal measures them right; giving back there cut the longest
    // entry at the image's right edge (a 31-character series name lost its last letters).
    const size_t svg_key_giveback = longest > 16 ? longest / 5 : 0;
    s += "set key outside right top vertical Left reverse samplen 2\n";
    s += "set grid ytics lc rgb \"#dddddd\"\nset border 3\nset tics nomirror\n";
    if (!negative) s += "set yrange [0:*]\n";
    if (spec.numeric_x) {
        if (spec.log_x) s += "set logscale x 2\n";
        std::vector<double> xs;
        for (const ResultRow& row : r.rows) xs.push_back(row.params[spec.x].get<double>());
        std::sort(xs.begin(), xs.end());
        xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
        std::string tics;
        for (double v : xs) tics += fmt::format("{}{}", tics.empty() ? "" : ", ", v);
        s += fmt::format("set xtics ({})\n", tics);
        const double span = xs.back() - xs.front();
        // One x value (a sweep of one point) still gets a range around it.
        const double margin = span > 0 ? span * 0.03 : std::max(std::abs(xs.front()) * 0.1, 1.0);
        const double lo = spec.log_x ? xs.front() / 1.15 : xs.front() - margin;
        const double hi = spec.log_x ? xs.back() * 1.15 : xs.back() + margin;
        s += fmt::format("set xrange [{}:{}]\n", lo, hi);
    } else {
        std::string tics;
        for (size_t j = 0; j < categories.size(); ++j) {
            tics += fmt::format("{}{} {}", tics.empty() ? "" : ", ", gp_string(categories[j]), j);
        }
        s += fmt::format("set xtics ({})\n", tics);
        s += fmt::format("set xrange [-0.6:{}]\n", static_cast<double>(categories.size()) - 0.4);
        s += fmt::format("set boxwidth {} absolute\nset style fill solid 0.75 border -1\n", width * 0.95);
    }
    std::string plot;
    auto add = [&plot](const std::string& item) { plot += (plot.empty() ? "plot " : ", \\\n     ") + item; };
    for (size_t i = 0; i < n; ++i) {
        const std::string colour = kColours[i % std::size(kColours)];
        const std::string name = series[i].name.empty() ? spec.metric : series[i].name;
        bool has_interval = false, has_pub = false;
        for (const ResultRow* row : series[i].rows) {
            has_interval = has_interval || row->metrics_interval.contains(spec.metric);
            has_pub = has_pub || row->published.contains(spec.metric);
        }
        if (spec.numeric_x) {
            if (has_interval) {
                add(
                    fmt::format("$pred{} using 1:3:4 with filledcurves lc rgb \"{}\" fs transparent solid 0.2 noborder "
                                "notitle",
                                i, colour));
            }
            add(fmt::format("$pred{} using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb \"{}\" title {}", i, colour,
                            gp_string(name)));
        } else {
            add(fmt::format("$pred{} using 1:2 with boxes lc rgb \"{}\" title {}", i, colour, gp_string(name)));
            add(fmt::format("$label{} using 1:2:3 with labels offset 0,0.7 font \",9\" notitle", i));
            if (has_interval) {
                add(fmt::format("$pred{} using 1:2:3:4 with yerrorbars lc rgb \"#333333\" pt -1 notitle", i));
            }
        }
        if (has_pub) {
            add(fmt::format("$pub{} using 1:2 with points pt {} ps 1.6 lw 2 lc rgb \"{}\" title {}", i,
                            spec.numeric_x ? 6 : 12, spec.numeric_x ? colour : "#000000",
                            gp_string(name + " (published)")));
        }
    }
    const bool key_shown = n > 1 || any_pub;  // one line, nothing beside it: the axis names it
    if (!key_shown) s += "unset key\n";
    const std::string plot_cmd = plot + "\n";
    // (Any `set key` option turns the key back on: only for a shown key.)
    if (key_shown) s += fmt::format("set key width -{}\n", svg_key_giveback);
    s += "set terminal svg size 1000,540 dynamic noenhanced font \"sans,12\" background rgb \"white\"\n";
    s += fmt::format("set output {}\n{}", gp_string(svg), plot_cmd);
    if (key_shown) s += "set key width 0\n";
    s += "set terminal pngcairo size 1000,540 noenhanced font \"sans,10\" background rgb \"white\"\n";
    s += fmt::format("set output {}\nreplot\nset output\n", gp_string(png));
    return s;
}

}  // namespace ipisim::report
