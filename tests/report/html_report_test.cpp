// The HTML report (report/html_report.h): its content, and how headless Chromium renders it
// (tables present, every embedded plot decoded). Chromium is Debian's `chromium`
// (scripts/install-deps.sh); without it the rendering test is skipped and says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "report/html.h"
#include "report/html_report.h"
#include "report/plot.h"
#include "report/results.h"
#include "report/results_files.h"
#include "support/scratch_path.h"

using namespace ipisim;
using namespace ipisim::report;

namespace {

std::filesystem::path scratch(const std::string& name) {
    auto p = ::ipisim::test::scratch_path(("ipisim_html_" + name));
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
}

// A results root with a pivot experiment (published values, latencies, a profile) and a
// line-template one, plotted when gnuplot is there.
std::filesystem::path results_root(const std::string& name) {
    const auto root = scratch(name);
    ExperimentResults a;
    a.experiment = "pivot_exp";
    a.description = "threads vs flush <b>bold?</b>";
    a.machine = "toy4";
    a.swept = {"threads", "flush"};
    a.report = {{"kind", "pivot"},          {"title", "loops/sec"}, {"rows", "threads"}, {"columns", "flush"},
                {"value", "loops_per_sec"}, {"scale", 1000.0},      {"suffix", "k"}};
    a.published_source = "table 1";
    for (int t : {1, 4}) {
        for (const char* f : {"ipi", "rar"}) {
            ResultRow row;
            row.params["threads"] = t;
            row.params["flush"] = f;
            row.metrics["loops_per_sec"] = 100000.0 * t + (f[0] == 'r' ? 5000 : 0);
            row.metrics["flush_share"] = 0.1 * t;
            row.published["loops_per_sec"] = 100000.0 * t;
            row.latency["flush_tlb_mm_range"] = {
                {"count", 10}, {"p50_ns", 900.0}, {"p90_ns", 1000.0}, {"p99_ns", 1200.0}, {"max_ns", 1300.0}};
            row.profile = {{"exc_page_fault (kernel)", 0.6}, {"csd_lock_wait (spin)", 0.3}, {"(other)", 0.1}};
            row.fingerprint = 0xabcdef;
            a.rows.push_back(row);
        }
    }
    a.rows[3].published["loops_per_sec"] = 300000.0;  // +35%: a poor prediction
    ExperimentResults b;
    b.experiment = "lines_exp";
    b.swept = {"barrier"};
    b.report = {{"kind", "lines"}, {"title", "dmesg:"}, {"line", "delta of {rounds}times:{total_ns} [{barrier}]"}};
    for (const char* bar : {"wmb", "dsb"}) {
        ResultRow row;
        row.params["barrier"] = bar;
        row.params["rounds"] = 3;
        row.metrics["total_ns"] = bar[0] == 'w' ? 840000 : 820000;
        b.rows.push_back(row);
    }
    for (const ExperimentResults* r : {&a, &b}) {
        write_text_file(root / r->experiment / "results.json", results_json(*r).dump(2));
        write_text_file(root / r->experiment / "config.toml",
                        "[experiment]\nworkload = \"w\"\n[kernel]\nversion = \"6.18\"\n");
        if (gnuplot_available()) plot_results(root / r->experiment);
    }
    return root;
}

std::string read_text_file_for_test(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(HtmlReport, the_page_holds_the_seed_tables_errors_setup_and_embedded_plots) {
    const auto root = results_root("content");
    const std::string html = read_text_file_for_test(write_html_report(root));
    EXPECT_NE(html.find("<table class=\"seed\">"), std::string::npos);
    // 4k threads x rar: 405k predicted, 300k published, +35.0%: flagged poor.
    EXPECT_NE(html.find("<span class=\"pred\">405k</span> <span class=\"pub\">300k</span> "
                        "<span class=\"err poor\">+35.0%</span>"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("<pre class=\"seed\">delta of 3times:840000 [wmb]\ndelta of 3times:820000 [dsb]\n</pre>"),
              std::string::npos);
    EXPECT_NE(html.find("threads vs flush &lt;b&gt;bold?&lt;/b&gt;"), std::string::npos);  // escaped
    EXPECT_NE(html.find("<tr><th>kernel</th><td>6.18</td></tr>"), std::string::npos);
    EXPECT_NE(html.find("<tr><th>machine</th><td>toy4</td></tr>"), std::string::npos);
    EXPECT_NE(html.find("csd_lock_wait (spin)"), std::string::npos);
    EXPECT_NE(html.find("flush_tlb_mm_range"), std::string::npos);
    EXPECT_EQ(html.find("http://"), std::string::npos);  // nothing to fetch
    EXPECT_EQ(html.find("https://"), std::string::npos);
    if (gnuplot_available()) {
        EXPECT_EQ(count(html, "<img alt="), 2U);  // loops_per_sec, total_ns
    }
    EXPECT_EQ(render_html_report(root), html);  // deterministic
    std::filesystem::remove_all(root);
}

TEST(HtmlReport, a_results_folder_given_as_the_root_is_reported_as_its_one_experiment) {
    const auto root = results_root("one_folder");
    const std::string html = read_text_file_for_test(write_html_report(root / "pivot_exp"));
    EXPECT_TRUE(std::filesystem::is_regular_file(root / "pivot_exp" / "index.html"));
    EXPECT_NE(html.find("<a href=\"#pivot_exp\">pivot_exp</a>"), std::string::npos) << html;
    EXPECT_NE(html.find("<span class=\"err poor\">+35.0%</span>"), std::string::npos);
    EXPECT_EQ(html.find("lines_exp"), std::string::npos);  // a sibling folder is not under this root
    EXPECT_EQ(html.find("No results here"), std::string::npos);
    // A root with neither gives the page that says so.
    const auto empty = scratch("no_results");
    EXPECT_NE(render_html_report(empty).find("No results here"), std::string::npos);
    std::filesystem::remove_all(root);
    std::filesystem::remove_all(empty);
}

TEST(HtmlReport, a_sensitivity_screen_of_the_same_configuration_is_shown_and_one_of_another_is_named) {
    const auto root = results_root("sensitivity");
    const std::filesystem::path dir = root / "pivot_exp" / "sensitivity";
    const std::string config = read_text_file_for_test(root / "pivot_exp" / "config.toml");
    // A screen of one point and one cost, as experiment/sensitivity.h writes it.
    nlohmann::ordered_json screen = {
        {"experiment", "pivot_exp"},
        {"machine", "toy4"},
        {"seed", 1},
        {"config_hash", text_hash(config)},
        {"swept", {"threads"}},
        {"method", "one at a time"},
        {"costs",
         {{{"key", "cpu.irq_entry"}, {"mark", "A"}, {"lo", 100000.0}, {"hi", 300000.0}, {"type", "duration"}}}},
        {"quantities",
         {{{"name", "loops_per_sec"},
           {"point", 0},
           {"params", {{"threads", 1}}},
           {"metric", "loops_per_sec"},
           {"nominal", 100000.0},
           {"effects",
            {{{"key", "cpu.irq_entry"},
              {"low", 110000.0},
              {"high", 90000.0},
              {"swing", -20000.0},
              {"relative", -0.2}}}}}}}};
    write_text_file(dir / "sensitivity.json", screen.dump(2));
    write_text_file(dir / "tornado_0.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
    std::string html = render_html_report(root);
    EXPECT_NE(html.find("<h3>Which costs move it (ipisim sensitivity)</h3>"), std::string::npos);
    EXPECT_NE(html.find("cpu.irq_entry"), std::string::npos);
    EXPECT_NE(html.find("-20.0%"), std::string::npos) << html;
    EXPECT_NE(html.find("alt=\"tornado_0\""), std::string::npos);
    // Another configuration's screen (another --set): named, not shown.
    screen["config_hash"] = "0000000000000000";
    write_text_file(dir / "sensitivity.json", screen.dump(2));
    html = render_html_report(root);
    EXPECT_NE(html.find("sensitivity.json is a screen of another configuration of this experiment (config_hash "
                        "0000000000000000, these results " +
                        text_hash(config) + "): not shown"),
              std::string::npos);
    EXPECT_EQ(html.find("cpu.irq_entry"), std::string::npos);
    // Files that are not screens: named, and the page is still written.
    write_text_file(dir / "sensitivity.json", "{\"config_hash\": \"" + text_hash(config) + "\"}");
    html = render_html_report(root);
    EXPECT_NE(html.find("sensitivity.json does not read as a screen"), std::string::npos);
    screen["config_hash"] = text_hash(config);
    screen["quantities"][0]["effects"][0]["key"] = "cpu.not_listed";  // a cost the costs do not list
    write_text_file(dir / "sensitivity.json", screen.dump(2));
    EXPECT_NE(render_html_report(root).find("sensitivity.json does not read as a screen"), std::string::npos);
    write_text_file(dir / "sensitivity.json", "{\"config_hash\": 7}");
    EXPECT_NE(render_html_report(root).find("is a screen of another configuration"), std::string::npos);
    write_text_file(dir / "sensitivity.json", "[1, 2]");
    EXPECT_NE(render_html_report(root).find("sensitivity.json does not read as a screen (not a JSON object)"),
              std::string::npos);
    write_text_file(dir / "sensitivity.json", "{ torn");
    EXPECT_NE(render_html_report(root).find("sensitivity.json is not valid JSON"), std::string::npos);
    std::filesystem::remove_all(root);
}

TEST(HtmlReport, uncertainty_intervals_are_shown_beside_the_predictions_and_explained) {
    const auto root = scratch("intervals");
    ExperimentResults r;
    r.experiment = "iv_exp";
    r.swept = {"threads", "flush"};
    r.report = {{"kind", "pivot"},          {"rows", "threads"}, {"columns", "flush"},
                {"value", "loops_per_sec"}, {"scale", 1000.0},   {"suffix", "k"}};
    for (int t : {1, 4}) {
        ResultRow row;
        row.params["threads"] = t;
        row.params["flush"] = "ipi";
        row.metrics["loops_per_sec"] = 100000.0 * t;
        row.metrics_interval["loops_per_sec"] =
            t == 1 ? nlohmann::ordered_json{90000.0, 110000.0} : nlohmann::ordered_json{410000.0, 480000.0};
        r.rows.push_back(row);
    }
    write_text_file(root / "iv_exp" / "results.json", results_json(r).dump(2));
    const std::string html = render_html_report(root);
    EXPECT_NE(html.find("<span class=\"iv\">[90k, 110k]</span>"), std::string::npos) << html;
    EXPECT_NE(html.find("<span class=\"iv\">[410k, 480k]*</span>"), std::string::npos) << html;  // 400k below it
    EXPECT_NE(html.find(">400k [410k, 480k]*<"), std::string::npos) << html;                     // every point
    EXPECT_NE(html.find("[lo, hi]: the 5&ndash;95% interval"), std::string::npos);
    EXPECT_NE(html.find("* the nominal value lies outside it"), std::string::npos);
    std::filesystem::remove_all(root);
}

std::string chromium() {
    for (const char* name : {"chromium", "chromium-browser"}) {
        for (const char* dir : {"/usr/bin", "/usr/local/bin", "/snap/bin"}) {
            const std::string p = std::string(dir) + "/" + name;
            if (::access(p.c_str(), X_OK) == 0) return p;
        }
    }
    return "";
}

std::string run(const std::string& cmd) {
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) return "";
    std::string out;
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    ::pclose(p);
    return out;
}

TEST(HtmlReport, headless_chromium_renders_the_tables_and_decodes_every_plot) {
    const std::string browser = chromium();
    if (browser.empty())
        GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it): not rendered";
    if (!gnuplot_available()) GTEST_SKIP() << "gnuplot is not installed: no plots to render";
    const auto root = results_root("render");
    const auto index = write_html_report(root);
    const std::string flags =
        " --headless --no-sandbox --disable-gpu --disable-background-networking"
        " --disable-component-update --disable-sync --no-first-run --user-data-dir=" +
        (root / "profile").string() + " --window-size=1280,2400 ";
    const std::string url = "file://" + index.string();
    const std::string dom = run("timeout 90 " + browser + flags + "--dump-dom '" + url + "' 2>/dev/null");
    ASSERT_NE(dom.find("data-loaded=\"yes\""), std::string::npos) << "the page did not finish loading:\n" << dom;
    // The overview; per experiment its setup and every point; the pivot's seed table, profile
    // and latencies.
    EXPECT_EQ(count(dom, "<table"), 8U);
    EXPECT_EQ(count(dom, "<table class=\"overview\">"), 1U);
    EXPECT_EQ(count(dom, "<table class=\"meta\">"), 2U);
    EXPECT_EQ(count(dom, "<table class=\"seed\">"), 1U);
    EXPECT_EQ(count(dom, "<table class=\"points\">"), 2U);
    EXPECT_EQ(count(dom, "<table class=\"profile\">"), 1U);
    EXPECT_EQ(count(dom, "<table class=\"latency\">"), 1U);
    EXPECT_EQ(count(dom, "<img "), 2U);
    EXPECT_EQ(count(dom, "data-ok=\"yes\""), 2U) << "a plot did not decode";
    EXPECT_EQ(count(dom, "data-ok=\"no\""), 0U);
    const auto shot = root / "screenshot.png";
    run("timeout 90 " + browser + flags + "--screenshot=" + shot.string() + " '" + url + "' 2>/dev/null");
    ASSERT_TRUE(std::filesystem::exists(shot));
    EXPECT_GT(std::filesystem::file_size(shot), 20000U);  // a page, not a blank
    std::filesystem::remove_all(root);
}

TEST(Html, escaping_and_base64_follow_their_rfcs) {
    EXPECT_EQ(html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    EXPECT_EQ(base64(""), "");
    EXPECT_EQ(base64("f"), "Zg==");
    EXPECT_EQ(base64("fo"), "Zm8=");
    EXPECT_EQ(base64("foo"), "Zm9v");
    EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
    EXPECT_EQ(data_uri("image/svg+xml", "<svg/>"), "data:image/svg+xml;base64,PHN2Zy8+");
}

}  // namespace
