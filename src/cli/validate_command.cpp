#include "cli/validate_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/validate_model.h"
#include "cli/validate_notes.h"
#include "config/error.h"
#include "config/toml_json.h"
#include "experiment/runner.h"
#include "hw/machine.h"
#include "probe/host_file.h"
#include "probe/host_info.h"
#include "probe/host_schema.h"
#include "probe/host_topology.h"
#include "probe/placement.h"
#include "probe/realtime.h"
#include "probe/tlb_flush2_native.h"
#include "report/atomic_file.h"
#include "report/results_files.h"
#include "report/text_table.h"

namespace ipisim::cli {

namespace {

struct Cell {
    probe::TaskMode mode;
    uint32_t tasks;
    probe::NativeTlbFlush2Result native;
    ModelTlbFlush2 model;
    // Multi-task cells on a host with a probed pair: the line latency of the tasks' first two
    // CPUs, probed and checked around the native run (rerun while they disagree).
    std::optional<probe::PlacementCheck> placement;
};

// The probed machine file, checked before any work; a missing one says how to make it.
hw::MachineSpec load_host(const std::string& path) {
    std::string text;
    try {
        text = config::Document::read_text(path);
    } catch (const config::ConfigError& e) {
        throw config::ConfigError(path, 0, "(file)", e.problem() + "; run `ipisim probe` first (or pass --host FILE)");
    }
    return probe::load_host_machine(text, path);
}

std::vector<uint32_t> default_tasks(uint32_t cpus) {
    std::vector<uint32_t> out;
    for (uint32_t t = 1; t < cpus; t *= 2) out.push_back(t);
    out.push_back(cpus);
    return out;
}

std::string pct(double predicted, double measured) {
    if (measured <= 0) return "n/a";
    return fmt::format("{:+.1f}%", 100.0 * (predicted - measured) / measured);
}

std::string opt(const std::optional<double>& v) {
    return v ? fmt::format("{:.3f}", *v) : "n/a";
}

// The measured figure the model is compared with: loops per task-CPU-second (what the tasks
// do owning their CPUs, as the model's tasks do), or the wall-clock figure without CPU clocks.
double measured(const Cell& c) {
    return c.native.loops_per_cpu_sec.n > 0 ? c.native.loops_per_cpu_sec.median : c.native.loops_per_sec.median;
}

std::vector<CellFigures> figures(const std::vector<Cell>& cells) {
    std::vector<CellFigures> out;
    for (const Cell& c : cells) {
        const probe::Spread& share = c.native.cpu_share;
        CellFigures f;
        f.mode = probe::to_string(c.mode);
        f.tasks = c.tasks;
        if (share.n > 0) f.cpu_share = share.median;
        f.measured_ipis_per_loop = c.native.tlb_per_loop;
        f.model_ipis_per_loop = c.model.ipis_per_loop;
        f.placement = c.placement;
        out.push_back(std::move(f));
    }
    return out;
}

std::string render(const std::vector<Cell>& cells) {
    report::TextTable t({"mode", "tasks", "loops/s (wall)", "min..max", "CPU share", "loops/s owning CPUs", "model",
                         "error", "error vs wall", "us/loop/task", "model us/loop/task", "TLB IPIs/loop",
                         "model IPIs/loop"});
    for (const Cell& c : cells) {
        const probe::Spread& s = c.native.loops_per_sec;
        const probe::Spread& share = c.native.cpu_share;
        const probe::Spread& owned = c.native.loops_per_cpu_sec;
        t.add_row({probe::to_string(c.mode), std::to_string(c.tasks), fmt::format("{:.0f}", s.median),
                   fmt::format("{:.0f}..{:.0f}", s.min, s.max),
                   share.n > 0 ? fmt::format("{:.3f}", share.median) : "n/a",
                   owned.n > 0 ? fmt::format("{:.0f}", owned.median) : "n/a",
                   fmt::format("{:.0f}", c.model.loops_per_sec), pct(c.model.loops_per_sec, measured(c)),
                   pct(c.model.loops_per_sec, s.median), fmt::format("{:.2f}", 1e6 * c.tasks / measured(c)),
                   fmt::format("{:.2f}", 1e6 * c.tasks / c.model.loops_per_sec), opt(c.native.tlb_per_loop),
                   fmt::format("{:.3f}", c.model.ipis_per_loop)});
    }
    std::string out = t.render();
    // Scaling: each task count over the mode's 1-task cell.
    report::TextTable scaling({"mode", "ratio", "measured", "model", "error"});
    for (const Cell& base : cells) {
        if (base.tasks != 1) continue;
        for (const Cell& c : cells) {
            if (c.mode != base.mode || c.tasks == 1) continue;
            const double m = measured(c) / measured(base);
            const double p = c.model.loops_per_sec / base.model.loops_per_sec;
            scaling.add_row({probe::to_string(c.mode), fmt::format("{} tasks / 1 task", c.tasks),
                             fmt::format("{:.3f}", m), fmt::format("{:.3f}", p), pct(p, m)});
        }
    }
    out += "\nscaling:\n" + scaling.render();
    // The placement checks: the line latency of each multi-task cell's first pair.
    std::string checks;
    for (const Cell& c : cells) {
        if (!c.placement) continue;
        const probe::PlacementCheck& p = *c.placement;
        checks += fmt::format("  {} x{}: CPU {} <-> {} {:.1f} ns probed, {:.1f} / {:.1f} ns before / after ({}){}\n",
                              probe::to_string(c.mode), c.tasks, p.cpu_a, p.cpu_b, p.probed_ns, p.before_ns, p.after_ns,
                              probe::attempts_text(p.attempts), p.matched() ? "" : ": another placement");
    }
    if (!checks.empty())
        out += "\ncache-line latency of the tasks' first two CPUs (the host's placement of them):\n" + checks;
    const std::vector<std::string> notes = validate_notes(figures(cells));
    if (!notes.empty()) out += "\nnotes:\n";
    for (const std::string& n : notes) out += "  " + n + "\n";
    return out;
}

nlohmann::ordered_json cells_json(const std::vector<Cell>& cells) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const Cell& c : cells) {
        const probe::Spread& s = c.native.loops_per_sec;
        rows.push_back(
            {{"mode", probe::to_string(c.mode)},
             {"tasks", c.tasks},
             {"measured_loops_per_sec", s.median},
             {"measured_windows", c.native.window_loops_per_sec},
             {"measured_cpu_share_windows", c.native.window_cpu_share},
             {"measured_loops_per_cpu_sec", c.native.loops_per_cpu_sec.median},
             {"measured_tlb_per_loop",
              c.native.tlb_per_loop ? nlohmann::ordered_json(*c.native.tlb_per_loop) : nlohmann::ordered_json(nullptr)},
             {"measured_cal_per_loop",
              c.native.cal_per_loop ? nlohmann::ordered_json(*c.native.cal_per_loop) : nlohmann::ordered_json(nullptr)},
             {"placement", c.placement ? nlohmann::ordered_json{{"cpus", {c.placement->cpu_a, c.placement->cpu_b}},
                                                                {"probed_line_ns", c.placement->probed_ns},
                                                                {"before_line_ns", c.placement->before_ns},
                                                                {"after_line_ns", c.placement->after_ns},
                                                                {"attempts", c.placement->attempts},
                                                                {"same_placement", c.placement->matched()}}
                                       : nlohmann::ordered_json(nullptr)},
             {"model_loops_per_sec", c.model.loops_per_sec},
             {"model_ipis_per_loop", c.model.ipis_per_loop},
             {"model_tlb_invalidation_share", c.model.tlb_invalidation_share},
             {"model_fingerprint", fmt::format("{:016x}", c.model.fingerprint)}});
    }
    return rows;
}

}  // namespace

int validate_host_command(const ValidateHostArgs& args) {
    const hw::MachineSpec machine = load_host(args.host);
    const probe::HostTopology topo = probe::load_host_topology();
    const auto cpus = static_cast<uint32_t>(std::min<size_t>(topo.task_order.size(), machine.topology.nr_cpus()));
    const std::vector<uint32_t> tasks = args.tasks.empty() ? default_tasks(cpus) : args.tasks;
    for (uint32_t t : tasks) {
        if (t < 1 || t > cpus) {
            throw config::ConfigError("--tasks", 0, "tasks",
                                      fmt::format("{} tasks: this host has {} usable CPUs (1..{})", t, cpus, cpus));
        }
    }
    const probe::HostInfo info = probe::read_host_info();
    // The model's experiment is read and checked before anything is measured.
    ModelSetup setup;
    setup.host_toml = args.host;
    setup.kernel_release = info.release;
    setup.tasks = tasks;
    setup.quick = args.quick;
    setup.seed = args.seed;
    experiment::PreparedExperiment model = prepare_model(setup);
    const kernel::KernelConfig& model_kernel = model.points.front().kernel;
    // The outputs go beside host.toml (validate.json, validate_model/): a place they cannot go
    // is found before the measurements, not after them.
    const std::filesystem::path dir = std::filesystem::path(args.host).parent_path();
    for (const std::string& problem :
         {report::file_write_problem(dir / "validate.json"), report::folder_write_problem(dir / "validate_model")}) {
        if (!problem.empty()) {
            throw config::ConfigError(
                "--host", 0, args.host,
                fmt::format("validate writes validate.json and validate_model/ beside it: {}", problem));
        }
    }

    std::string why;
    const bool rt = args.realtime && probe::realtime_permitted(&why);
    if (args.realtime && !rt) fmt::print(stderr, "validate: no real-time priority ({}); tasks share their CPUs\n", why);
    probe::set_realtime(rt);
    const std::string load = probe::load_average();

    std::vector<Cell> cells;
    for (probe::TaskMode mode : {probe::TaskMode::threads, probe::TaskMode::processes}) {
        for (uint32_t t : tasks) {
            probe::NativeTlbFlush2Options o;
            o.mode = mode;
            o.cpus.assign(topo.task_order.begin(), topo.task_order.begin() + t);
            o.warmup_s = args.quick ? 0.2 : 1.0;
            o.window_s = args.quick ? 0.25 : 1.0;
            o.windows = args.quick ? 3 : 5;
            fmt::print(stderr, "validate: native tlb_flush2 {} x{}\n", probe::to_string(mode), t);
            Cell c{mode, t, {}, {}, std::nullopt};
            const auto measure = [&c, &o] {
                c.native = probe::run_native_tlb_flush2(o);
                if (!c.native.failure.empty()) throw std::runtime_error("native tlb_flush2: " + c.native.failure);
            };
            // A multi-task cell is measured under the placement host.toml was probed at, or
            // rerun (up to 3 times, 2 quick) while the line latency of its first pair says otherwise.
            const sim::Picos probed =
                t >= 2 ? machine.coherence.transfer.at(topo.distance(o.cpus[0], o.cpus[1])) : sim::Picos::zero();
            if (probed > sim::Picos::zero()) {
                c.placement = probe::measure_at_placement(
                    o.cpus[0], o.cpus[1], probed.ns(), args.quick ? 2 : 3, measure, [](const probe::PlacementCheck& p) {
                        fmt::print(stderr,
                                   "validate: line CPU {} <-> {} {:.1f} ns before, {:.1f} ns after, {:.1f} ns probed: "
                                   "the host moved the CPUs; measuring again\n",
                                   p.cpu_a, p.cpu_b, p.before_ns, p.after_ns, p.probed_ns);
                    });
            } else {
                measure();
            }
            cells.push_back(std::move(c));
        }
    }
    probe::set_realtime(false);
    fmt::print(stderr, "validate: model tlb_flush2 ({} points)\n", model.points.size());
    const ModelOutcome predicted = run_model(model);
    for (size_t i = 0; i < cells.size(); ++i) {
        cells[i].model = predicted.cells.at(i);
        if (cells[i].model.mode != probe::to_string(cells[i].mode) || cells[i].model.tasks != cells[i].tasks) {
            throw std::logic_error("validate host: the model's points are not in the order of the measured cells");
        }
    }
    experiment::write_experiment_outputs(model, predicted.results, dir / "validate_model");

    fmt::print("will-it-scale tlb_flush2 on this host ({}; {}), measured natively vs the model on {}\n", info.release,
               info.virtualized() ? "virtualized" : "bare metal", args.host);
    fmt::print("measured: median of {} windows of {} s after {} s warm-up, tasks {}; load average at start {}\n",
               args.quick ? 3 : 5, args.quick ? 0.25 : 1.0, args.quick ? 0.2 : 1.0,
               rt ? "SCHED_FIFO" : "at normal priority", load);
    fmt::print(
        "\"error\" compares the model with loops per task-CPU-second (the tasks owning their CPUs, as in the "
        "model);\n\"error vs wall\" with will-it-scale's wall-clock figure. Model: [kernel] version = \"{}\", "
        "tlb_flush = {}, madvise_lru_add_drain = {} (the version's default); rerun it with `ipisim run {}`.\n\n",
        model_kernel.version, model_kernel.tlb_flush, model_kernel.madvise_lru_add_drain,
        (dir / "validate_model" / "config.toml").string());
    const std::string kernel_note = model_kernel_note(info.release);
    if (!kernel_note.empty()) fmt::print("Note: {}.\n\n", kernel_note);
    fmt::print("{}", render(cells));
    const std::filesystem::path out = dir / "validate.json";
    nlohmann::ordered_json j;
    j["host"] = args.host;
    j["kernel"] = info.release;
    j["model_kernel"] = config::to_json(model.base_kernel);
    if (!kernel_note.empty()) j["model_kernel_note"] = kernel_note;
    j["quick"] = args.quick;
    j["realtime"] = rt;
    j["load_average"] = load;
    j["cells"] = cells_json(cells);
    j["notes"] = validate_notes(figures(cells));
    report::write_text_file(out, j.dump(2) + "\n");
    fmt::print("\nwrote {}\n", out.string());
    return 0;
}

}  // namespace ipisim::cli
