#include "report/html_report.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <vector>

#include "report/file_text.h"
#include "report/html.h"
#include "report/html_tables.h"
#include "report/plot.h"
#include "report/results_files.h"
#include "report/sensitivity_text.h"

namespace ipisim::report {

namespace {

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d232a; margin: 0; background: #f6f7f9; }
header { background: #1f2a37; color: #fff; padding: 18px 32px; }
header h1 { margin: 0; font-size: 22px; }
header p { margin: 4px 0 0; color: #c8d1dc; }
main { padding: 8px 32px 40px; max-width: 1400px; }
section { background: #fff; border: 1px solid #dde2e8; border-radius: 8px; padding: 8px 24px 20px; margin: 20px 0; }
h2 { font-size: 19px; margin: 14px 0 2px; }
h3 { font-size: 15px; margin: 22px 0 8px; color: #334155; border-bottom: 1px solid #e5e9ef; padding-bottom: 3px; }
p.desc { margin: 0 0 10px; color: #475569; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e5e9ef; text-align: left; vertical-align: top; }
th { background: #f1f4f8; font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.key { font-weight: 600; white-space: nowrap; }
table.meta th { width: 110px; background: none; color: #64748b; font-weight: 500; }
table.seed td { font-size: 14px; padding: 5px 14px; }
.pred { font-weight: 600; }
.pub { color: #64748b; }
.iv { color: #64748b; font-size: 12px; }
.pub::before { content: "("; } .pub::after { content: ")"; }
.err { display: inline-block; min-width: 52px; text-align: right; padding: 0 4px; border-radius: 3px; font-size: 12px; }
.err.good { background: #dcfce7; color: #166534; }
.err.fair { background: #fef3c7; color: #92400e; }
.err.poor { background: #fee2e2; color: #991b1b; }
p.caption { font-weight: 600; margin: 4px 0 6px; }
p.note { color: #64748b; font-size: 12px; margin: 6px 0; }
pre { background: #f8fafc; border: 1px solid #e5e9ef; padding: 10px; overflow-x: auto; font-size: 12px; }
.scroll { overflow-x: auto; max-width: 100%; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 900px)); gap: 14px; }
figure { margin: 0; }
figure img { width: 100%; max-width: 900px; border: 1px solid #e5e9ef; background: #fff; }
figcaption { color: #64748b; font-size: 12px; }
.bar { display: flex; width: 360px; height: 12px; margin-top: 3px; border-radius: 3px; overflow: hidden; background: #eee; }
table.profile td { padding: 3px 10px; }
th.group, td.group { border-left: 2px solid #dde2e8; }
.bar span { display: block; height: 100%; }
.entry { display: inline-block; margin-right: 12px; white-space: nowrap; font-size: 12px; }
.entry i { display: inline-block; width: 9px; height: 9px; margin-right: 4px; border-radius: 2px; }
nav a { margin-right: 12px; }
)css";

// After loading, every image says whether it decoded (data-ok), so a headless check can tell.
constexpr const char* kScript = R"js(
window.addEventListener('load', () => {
  document.querySelectorAll('img').forEach(i => { i.dataset.ok = (i.complete && i.naturalWidth > 0) ? 'yes' : 'no'; });
  document.body.dataset.loaded = 'yes';
});
)js";

struct Folder {
    std::string name;  // the folder's name (the experiment's, for `ipisim reproduce`)
    std::filesystem::path dir;
    ExperimentResults results;
};

// Whether `root` is itself an experiment folder (the --out of `ipisim run`).
bool is_experiment_folder(const std::filesystem::path& root) {
    std::error_code ec;
    return std::filesystem::is_regular_file(root / "results.json", ec);
}

// The experiment folders (NAME/results.json) under `root`, in name order.
std::vector<std::filesystem::path> child_experiment_folders(const std::filesystem::path& root) {
    std::vector<std::filesystem::path> dirs;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
        if (e.is_directory(ec) && std::filesystem::is_regular_file(e.path() / "results.json", ec)) {
            dirs.push_back(e.path());
        }
    }
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

// The experiment folders under `root`; `root` itself when it is one.
std::vector<Folder> experiment_folders(const std::filesystem::path& root) {
    std::vector<Folder> out;
    if (is_experiment_folder(root)) {
        ExperimentResults r = read_results_json(root / "results.json");
        std::string name = r.experiment;
        if (name.empty()) {
            std::filesystem::path dir = std::filesystem::absolute(root).lexically_normal();
            if (!dir.has_filename()) dir = dir.parent_path();  // "r/mine/"
            name = dir.filename().string();
        }
        out.push_back({std::move(name), root, std::move(r)});
        return out;
    }
    for (const auto& d : child_experiment_folders(root)) {
        out.push_back({d.filename().string(), d, read_results_json(d / "results.json")});
    }
    return out;
}

// What config.toml says about the machine, workload and kernel (read leniently: it is ours).
struct Setup {
    std::string workload, machine, kernel, text;
};

Setup setup_of(const Folder& f) {
    Setup s;
    s.machine = f.results.machine;
    const std::filesystem::path file = f.dir / "config.toml";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return s;
    s.text = file_text(file);
    try {
        const toml::table t = toml::parse(s.text, file.string());
        s.workload = t.at_path("experiment.workload").value_or(std::string());
        if (s.machine.empty()) s.machine = t.at_path("experiment.machine").value_or(std::string());
        if (auto v = t.at_path("kernel.version").value<std::string>()) s.kernel = *v;
        if (auto d = t.at_path("machine.description").value<std::string>()) s.machine += " — " + *d;
    } catch (const toml::parse_error&) {
    }
    return s;
}

std::string meta_row(const char* what, const std::string& value) {
    return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", what, value.empty() ? "&ndash;" : html_escape(value));
}

// The planned plots in their order (report/plot.h), then any other plot_*.svg of the folder.
std::string plots(const Folder& f) {
    std::vector<std::filesystem::path> svgs, others;
    std::error_code ec;
    for (const PlotSpec& spec : plan_plots(f.results)) {
        const std::filesystem::path p = f.dir / (spec.stem + ".svg");
        if (std::filesystem::is_regular_file(p, ec)) svgs.push_back(p);
    }
    for (const auto& e : std::filesystem::directory_iterator(f.dir, ec)) {
        const std::string n = e.path().filename().string();
        if (n.rfind("plot_", 0) == 0 && e.path().extension() == ".svg" &&
            std::find(svgs.begin(), svgs.end(), e.path()) == svgs.end()) {
            others.push_back(e.path());
        }
    }
    std::sort(others.begin(), others.end());
    svgs.insert(svgs.end(), others.begin(), others.end());
    if (svgs.empty())
        return "<p class=\"note\">no plots in this folder (ipisim plot DIR draws them with gnuplot)</p>\n";
    std::string out = "<div class=\"plots\">\n";
    for (const auto& svg : svgs) {
        const std::string metric = svg.stem().string().substr(5);
        out += fmt::format("<figure><img alt=\"{0} plot\" src=\"{1}\"><figcaption>{0}</figcaption></figure>\n",
                           html_escape(metric), data_uri("image/svg+xml", file_text(svg)));
    }
    return out + "</div>\n";
}

// The screen of `ipisim sensitivity` in the folder's sensitivity/ (its default --out) when it is
// of the same resolved configuration as the results (its "config_hash", the hash of the folder's
// config.toml): its tables (the top 5 costs per quantity) and its tornado plots. A screen of
// another configuration, or a file that does not read, is named in a note, not shown.
std::string sensitivity_section(const Folder& f, const std::string& config_text) {
    const std::filesystem::path dir = f.dir / "sensitivity";
    const std::filesystem::path file = dir / "sensitivity.json";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return "";
    std::string out = "<h3>Which costs move it (ipisim sensitivity)</h3>\n";
    const auto note = [&](const std::string& why) {
        return out + "<p class=\"note\">" + html_escape(file.string()) + " " + html_escape(why) + "</p>\n";
    };
    const auto j = nlohmann::ordered_json::parse(file_text(file), nullptr, false);
    if (j.is_discarded()) return note("is not valid JSON: not shown");
    if (!j.is_object()) return note("does not read as a screen (not a JSON object): not shown");
    const auto hash = j.find("config_hash");
    const std::string screened = hash != j.end() && hash->is_string() ? hash->get<std::string>() : "";
    const std::string here = config_text.empty() ? "" : text_hash(config_text);
    if (screened != here) {
        return note(
            fmt::format("is a screen of another configuration of this experiment (config_hash {}, these "
                        "results {}): not shown; ipisim sensitivity {} screens this one",
                        screened.empty() ? "none" : screened, here.empty() ? "unknown" : here, f.name));
    }
    std::string text;
    try {
        text = sensitivity_text(j, 5);
    } catch (const std::exception& e) {  // a member missing or of another type
        return note(fmt::format("does not read as a screen ({}): not shown", e.what()));
    }
    out += "<pre class=\"sensitivity\">" + html_escape(text) + "</pre>\n";
    std::vector<std::filesystem::path> svgs;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string n = e.path().filename().string();
        if (n.rfind("tornado_", 0) == 0 && e.path().extension() == ".svg") svgs.push_back(e.path());
    }
    std::sort(svgs.begin(), svgs.end());
    if (svgs.empty()) return out;
    out += "<div class=\"plots\">\n";
    for (const auto& svg : svgs) {
        out += fmt::format("<figure><img alt=\"{0}\" src=\"{1}\"><figcaption>{0}</figcaption></figure>\n",
                           html_escape(svg.stem().string()), data_uri("image/svg+xml", file_text(svg)));
    }
    return out + "</div>\n";
}

std::string section(const Folder& f) {
    const ExperimentResults& r = f.results;
    const Setup setup = setup_of(f);
    std::string out = fmt::format("<section id=\"{0}\">\n<h2>{0}</h2>\n", html_escape(f.name));
    if (!r.description.empty()) out += "<p class=\"desc\">" + html_escape(r.description) + "</p>\n";
    std::string swept;
    for (const auto& k : r.swept) swept += (swept.empty() ? "" : " × ") + k;
    out += "<table class=\"meta\">\n" + meta_row("machine", setup.machine) + meta_row("workload", setup.workload) +
           meta_row("kernel", setup.kernel.empty() ? "not recorded in config.toml" : setup.kernel) +
           meta_row("seed", std::to_string(r.seed)) +
           meta_row("points", fmt::format("{}{}", r.rows.size(), swept.empty() ? "" : " (" + swept + ")")) +
           meta_row("fingerprint", fingerprint_hex(combined_fingerprint(r.rows)));
    if (!r.machine_hash.empty()) out += meta_row("machine hash", r.machine_hash);
    if (!r.ipisim_version.empty()) out += meta_row("ipisim", r.ipisim_version + " (git " + r.git_commit + ")");
    if (!r.published_note.empty()) out += meta_row("published", r.published_note);
    out += "</table>\n";
    const std::string seed = html_seed_table(r);
    if (!seed.empty()) out += "<h3>The seed's table</h3>\n" + seed;
    out += "<h3>Plots</h3>\n" + plots(f);
    out += "<h3>Every point</h3>\n" + html_points_table(r);
    const std::string profile = html_profile_table(r);
    if (!profile.empty()) out += "<h3>Where CPU time goes</h3>\n" + profile;
    const std::string latency = html_latency_table(r);
    if (!latency.empty()) out += "<h3>Latency of timed operations</h3>\n" + latency;
    out += sensitivity_section(f, setup.text);
    if (!setup.text.empty()) {
        out += "<details><summary>config.toml (the resolved configuration)</summary><pre>" + html_escape(setup.text) +
               "</pre></details>\n";
    }
    return out + "</section>\n";
}

std::string overview(const std::vector<Folder>& folders) {
    std::string out =
        "<section id=\"overview\">\n<h2>Overview</h2>\n<table class=\"overview\"><thead><tr>"
        "<th>experiment</th><th>machine</th><th>points</th><th>published cells</th>"
        "<th>mean |error|</th><th>max |error|</th><th>fingerprint</th></tr></thead><tbody>\n";
    for (const Folder& f : folders) {
        const ErrorSummary e = error_summary(f.results);
        auto pct = [&](double v) {
            return e.cells == 0 ? std::string("&ndash;")
                                : fmt::format("<span class=\"err {}\">{:.1f}%</span>", error_class(v), v * 100);
        };
        out += fmt::format(
            "<tr><td class=\"key\"><a href=\"#{0}\">{0}</a></td><td>{1}</td><td class=\"num\">{2}</td>"
            "<td class=\"num\">{3}</td><td class=\"num\">{4}</td><td class=\"num\">{5}</td><td><code>{6}</code></td>"
            "</tr>\n",
            html_escape(f.name), html_escape(f.results.machine), f.results.rows.size(), e.cells, pct(e.mean_abs),
            pct(e.max_abs), fingerprint_hex(combined_fingerprint(f.results.rows)));
    }
    return out +
           "</tbody></table>\n<p class=\"note\">|error| = |predicted − published| / published over the "
           "cells with a published value (calibration rows included).</p>\n</section>\n";
}

}  // namespace

std::string render_html_report(const std::filesystem::path& results_root) {
    const std::vector<Folder> folders = experiment_folders(results_root);
    std::string out =
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>ipisim results</title>\n<style>" +
        std::string(kStyle) + "</style>\n<script>" + kScript + "</script>\n</head>\n<body>\n";
    out +=
        "<header><h1>ipisim results</h1><p>Predicted by simulation, beside the published values where the "
        "seeds give them.</p></header>\n<main>\n";
    if (folders.empty()) {
        out +=
            "<section><p>No results here (results.json, or NAME/results.json): run <code>ipisim reproduce</code> "
            "or <code>ipisim run</code> first.</p></section>\n";
    } else {
        out += "<nav>";
        for (const Folder& f : folders) out += fmt::format("<a href=\"#{0}\">{0}</a>", html_escape(f.name));
        out += "</nav>\n" + overview(folders);
        for (const Folder& f : folders) out += section(f);
    }
    return out + "</main>\n</body>\n</html>\n";
}

void check_html_report_folders(const std::filesystem::path& results_root, const std::set<std::string>& replaced) {
    if (is_experiment_folder(results_root)) {
        read_results_json(results_root / "results.json");
        return;
    }
    for (const auto& d : child_experiment_folders(results_root)) {
        if (replaced.count(d.filename().string()) == 0) read_results_json(d / "results.json");
    }
}

std::filesystem::path write_html_report(const std::filesystem::path& results_root) {
    std::filesystem::path file = results_root / "index.html";
    write_text_file(file, render_html_report(results_root));
    return file;
}

}  // namespace ipisim::report
