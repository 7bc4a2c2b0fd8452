// cli::Console (cli/console.h): progress lines, and whole lines on stdout and stderr when both
// go to one file.
#include "cli/console.h"
#include "support/scratch_path.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace ipisim;

namespace {

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(Console, a_progress_line_names_the_point_and_gives_an_eta_from_the_finished_points) {
    EXPECT_EQ(cli::Console::progress_line(1, 0, 4, "seed000_rar", "threads=1 flush=ipi", 0.2),
              "[1/4] seed000_rar threads=1 flush=ipi  0 s");
    EXPECT_EQ(cli::Console::progress_line(3, 2, 4, "seed000_rar", "threads=10 flush=ipi", 30.0),
              "[3/4] seed000_rar threads=10 flush=ipi  30 s, ETA 30 s");
    EXPECT_EQ(cli::Console::progress_line(4, 4, 4, "demo", "", 125.0), "[4/4] demo  2 min 05 s");
}

TEST(Console, durations_read_as_seconds_minutes_or_hours) {
    EXPECT_EQ(cli::Console::duration_text(59.4), "59 s");
    EXPECT_EQ(cli::Console::duration_text(60.0), "1 min 00 s");
    EXPECT_EQ(cli::Console::duration_text(3725.0), "1 h 02 min");
    EXPECT_EQ(cli::Console::duration_text(-1.0), "0 s");
}

// Regression: with stdout fully buffered and stderr not, `reproduce > out.txt 2>&1` cut table
// lines in the middle with progress lines. Two streams on one file, buffered as stdout and
// stderr are when redirected, must still give whole lines in the order they were written.
TEST(Console, stdout_and_stderr_into_one_file_never_cut_a_line) {
    const auto path = ::ipisim::test::scratch_path("ipisim_console_one_file.txt");
    std::FILE* file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::FILE* out = fdopen(dup(fileno(file)), "w");
    std::FILE* err = fdopen(dup(fileno(file)), "w");
    std::fclose(file);
    ASSERT_NE(out, nullptr);
    ASSERT_NE(err, nullptr);
    std::setvbuf(out, nullptr, _IOFBF, 1 << 16);
    std::setvbuf(err, nullptr, _IONBF, 0);
    {
        cli::Console con(cli::ConsoleOptions{false, cli::ProgressMode::always}, out, err);
        EXPECT_TRUE(con.shows_progress());
        con.begin(2);
        con.out("==== demo — a table follows\n");
        con.point_started("demo", "cpus=1");
        con.point_finished("demo", "cpus=1");
        con.out("table line one\ntable line two\n");
        con.point_started("demo", "cpus=2");
        con.point_finished("demo", "cpus=2");
        con.note("results in somewhere\n");
        con.out("fingerprint: 0123\n");
    }
    std::fclose(out);
    std::fclose(err);
    const std::string text = read_file(path);
    std::istringstream lines(text);
    std::vector<std::string> got;
    for (std::string l; std::getline(lines, l);) got.push_back(l.substr(0, l.find("  ")));  // drop the times
    const std::vector<std::string> expected = {
        "==== demo — a table follows", "[1/2] demo cpus=1",    "table line one",   "table line two",
        "[2/2] demo cpus=2",           "results in somewhere", "fingerprint: 0123"};
    EXPECT_EQ(got, expected) << text;
    std::filesystem::remove(path);
}

TEST(Console, quiet_shows_no_progress_or_notes_but_results_and_warnings) {
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    {
        cli::Console con(cli::ConsoleOptions{true, cli::ProgressMode::always}, out, err);
        EXPECT_FALSE(con.shows_progress());
        con.begin(1);
        con.point_started("demo", "");
        con.point_finished("demo", "");
        con.note("results in somewhere\n");
        con.warn("ipisim: warning: no plots\n");
        con.out("table\n");
    }
    auto contents = [](std::FILE* f) {
        std::rewind(f);
        std::string s;
        for (int c; (c = std::fgetc(f)) != EOF;) s.push_back(static_cast<char>(c));
        std::fclose(f);
        return s;
    };
    EXPECT_EQ(contents(out), "table\n");
    EXPECT_EQ(contents(err), "ipisim: warning: no plots\n");
}

// With --jobs, points finish in another order than they start: the line of a finished point
// names that point, not the one started last.
TEST(Console, a_finished_point_line_names_the_point_that_finished) {
    std::FILE* err = std::tmpfile();
    {
        cli::Console con(cli::ConsoleOptions{false, cli::ProgressMode::always}, stdout, err);
        con.begin(2);
        con.point_started("demo", "cpus=1");
        con.point_started("demo", "cpus=2");
        con.point_finished("demo", "cpus=2");
        con.point_finished("demo", "cpus=1");
    }
    std::rewind(err);
    std::string text;
    for (int c; (c = std::fgetc(err)) != EOF;) text.push_back(static_cast<char>(c));
    std::fclose(err);
    std::istringstream lines(text);
    std::vector<std::string> got;
    for (std::string l; std::getline(lines, l);) got.push_back(l.substr(0, l.find("  ")));
    EXPECT_EQ(got, (std::vector<std::string>{"[1/2] demo cpus=2", "[2/2] demo cpus=1"})) << text;
}

// Progress comes from the threads running points: calls from several threads at once give
// whole lines, every one of them.
TEST(Console, calls_from_several_threads_give_whole_lines) {
    std::FILE* err = std::tmpfile();
    {
        cli::Console con(cli::ConsoleOptions{false, cli::ProgressMode::always}, stdout, err);
        con.begin(400);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&con, t] {
                for (int i = 0; i < 100; ++i) {
                    const std::string point = "t=" + std::to_string(t) + " i=" + std::to_string(i);
                    con.point_started("demo", point);
                    con.point_finished("demo", point);
                    con.note("note " + point + "\n");
                }
            });
        }
        for (std::thread& th : threads) th.join();
    }
    std::rewind(err);
    std::string text;
    for (int c; (c = std::fgetc(err)) != EOF;) text.push_back(static_cast<char>(c));
    std::fclose(err);
    std::istringstream lines(text);
    size_t progress = 0;
    size_t notes = 0;
    for (std::string l; std::getline(lines, l);) {
        if (l.rfind("[", 0) == 0 && l.find("] demo t=") != std::string::npos) {
            ++progress;
        } else if (l.rfind("note t=", 0) == 0) {
            ++notes;
        } else {
            ADD_FAILURE() << "a cut or mixed line: " << l;
        }
    }
    EXPECT_EQ(progress, 400U);
    EXPECT_EQ(notes, 400U);
}

TEST(Console, progress_is_off_by_default_when_stderr_is_not_a_terminal) {
    std::FILE* err = std::tmpfile();
    cli::Console con(cli::ConsoleOptions{}, stdout, err);
    EXPECT_FALSE(con.shows_progress());
    std::fclose(err);
}

}  // namespace
