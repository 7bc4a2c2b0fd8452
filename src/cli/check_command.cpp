#include "cli/check_command.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "check/event_log.h"
#include "check/explore.h"
#include "check/mutants.h"
#include "check/violation_trace.h"
#include "config/error.h"
#include "config/suggest.h"
#include "hw/machine.h"
#include "kernel/tlbflush/tlb_flush_protocol.h"
#include "report/atomic_file.h"
#include "sim/registry.h"

namespace ipisim::cli {

namespace {

constexpr const char* kToyMachines[] = {"toy4", "toy8", "toy2", "toy4_arm"};

int bad_input(const std::string& message) {
    fmt::print(stderr, "{}\n", message);
    return config::kExitBadInput;
}

// Reads a replay file into args (FILE:LINE: key: problem on a mistake).
void read_replay(const std::string& path, CheckArgs& args, check::StressSpec& spec) {
    toml::table t;
    try {
        t = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
        throw config::ConfigError(path, static_cast<int>(e.source().begin.line), "(file)",
                                  std::string(e.description()));
    }
    const toml::table* c = t["check"].as_table();
    if (c == nullptr) throw config::ConfigError(path, 1, "check", "missing [check] table");
    auto line = [](const toml::node& n) { return static_cast<int>(n.source().begin.line); };
    for (const auto& [key, value] : *c) {
        const std::string k(key.str());
        const toml::node& node = value;  // a plain reference: lambdas capture it (clang-tidy's clang 14 cannot
                                         // capture a structured binding)
        auto integer = [&]() -> uint64_t {
            const auto v = node.value<int64_t>();
            if (!v || *v < 0)
                throw config::ConfigError(path, line(node), "check." + k, "expected a non-negative integer");
            return static_cast<uint64_t>(*v);
        };
        if (k == "protocol" || k == "machine") {
            const auto v = node.value<std::string>();
            if (!v) throw config::ConfigError(path, line(node), "check." + k, "expected a string");
            (k == "protocol" ? args.protocol : args.machine) = *v;
        } else if (k == "seed") {
            args.first_seed = integer();
        } else if (k == "ops_per_cpu") {
            args.ops = static_cast<uint32_t>(integer());
        } else if (k == "perturb") {
            const auto v = node.value<bool>();
            if (!v) throw config::ConfigError(path, line(node), "check." + k, "expected true or false");
            args.no_perturb = !*v;
        } else if (k == "jitter_percent") {
            spec.perturbation.jitter_percent = static_cast<uint32_t>(integer());
        } else if (k == "delay_per_mille") {
            spec.perturbation.delay_per_mille = static_cast<uint32_t>(integer());
        } else if (k == "max_delay_ps") {
            spec.perturbation.max_delay = sim::Picos(integer());
        } else if (k == "store_buffer") {
            const uint64_t n = integer();
            if (n > 512) throw config::ConfigError(path, line(node), "check." + k, "at most 512 entries");
            args.store_buffer = static_cast<int64_t>(n);
        } else {
            throw config::ConfigError(path, line(node), "check." + k, "unknown key");
        }
    }
    for (const char* required : {"protocol", "machine", "seed"}) {
        if (!c->contains(required)) throw config::ConfigError(path, 1, std::string("check.") + required, "missing");
    }
    args.seeds = 1;
}

std::string last_lines(const std::string& s, size_t n) {
    size_t pos = s.size();
    for (size_t i = 0; i <= n && pos != std::string::npos && pos > 0; ++i) pos = s.rfind('\n', pos - 1);
    return pos == std::string::npos ? s : s.substr(pos + 1);
}

}  // namespace

int check_command(const CheckArgs& given, const DataDirs& dirs) {
    check::register_mutants();
    CheckArgs args = given;
    check::StressSpec spec;
    if (!args.replay.empty()) read_replay(args.replay, args, spec);
    if (args.protocol.empty()) return bad_input("ipisim check: --protocol: required (or --replay FILE)");
    if (!sim::Registry<kernel::TlbFlushProtocol>::instance().contains(args.protocol)) {
        const auto known = sim::Registry<kernel::TlbFlushProtocol>::instance().name_list();
        return bad_input(fmt::format("ipisim check: --protocol: unknown flush protocol \"{}\"{}; registered: {}",
                                     args.protocol, config::did_you_mean(args.protocol, known),
                                     kernel::tlb_flush_protocol_names()));
    }
    if (args.seeds == 0) return bad_input("ipisim check: --seeds: must be at least 1");
    if (args.first_seed > std::numeric_limits<uint64_t>::max() - (args.seeds - 1)) {
        return bad_input(fmt::format("ipisim check: --first-seed: {} seeds from {} would need seeds past {}",
                                     args.seeds, args.first_seed, std::numeric_limits<uint64_t>::max()));
    }
    if (args.ops == 0) return bad_input("ipisim check: --ops: must be at least 1");
    if (args.machine.empty()) {
        for (const char* m : kToyMachines) {
            if (kernel::tlb_flush_protocol_check(args.protocol, hw::load_machine_by_name(dirs.machines, m)).empty()) {
                args.machine = m;
                break;
            }
        }
        if (args.machine.empty()) return bad_input("ipisim check: --machine: no toy machine supports " + args.protocol);
    }
    spec.machine = hw::load_machine_by_name(dirs.machines, args.machine);
    if (args.store_buffer >= 0) spec.machine.coherence.store_buffer = static_cast<uint32_t>(args.store_buffer);
    if (const std::string why = kernel::tlb_flush_protocol_check(args.protocol, spec.machine); !why.empty()) {
        return bad_input("ipisim check: --protocol: " + why);
    }
    // A violation's log and replay file go to --out: a place they cannot go is found now.
    if (const std::string why = report::folder_write_problem(args.out_dir); !why.empty()) {
        return bad_input(fmt::format("ipisim check: --out: {}: {}", args.out_dir, why));
    }
    spec.protocol = args.protocol;
    spec.ops_per_cpu = args.ops;
    spec.perturb = !args.no_perturb;

    check::ExploreSpec ex;
    ex.base = spec;
    ex.first_seed = args.first_seed;
    ex.seeds = args.seeds;
    ex.jobs = args.jobs != 0 ? args.jobs : std::max(1U, std::thread::hardware_concurrency());
    const auto t0 = std::chrono::steady_clock::now();
    const check::ExploreResult r = check::explore(ex);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.failing_seed) {
        const uint32_t sb = spec.machine.coherence.store_buffer;
        const std::string on = sb == 0 ? args.machine : fmt::format("{} (store buffers of {})", args.machine, sb);
        fmt::print("ok: {} on {}: {} seed{} ({}..{}), {} flushes, {} user accesses, no violation ({:.1f} s, {} jobs)\n",
                   args.protocol, on, r.seeds_run, r.seeds_run == 1 ? "" : "s", args.first_seed,
                   args.first_seed + args.seeds - 1, r.flushes, r.accesses, secs, ex.jobs);
        return 0;
    }
    check::StressSpec failed = spec;
    failed.seed = *r.failing_seed;
    const std::string report = check::failure_report(failed, r.failure);
    std::filesystem::create_directories(args.out_dir);
    const std::string stem = fmt::format("{}/{}-{}-seed{}", args.out_dir, args.protocol, args.machine, failed.seed);
    std::ofstream(stem + ".replay.toml") << check::replay_file_text(failed, args.machine);
    std::ofstream(stem + ".log") << report << "\nEvent log of the window before the first violation (last "
                                 << check::EventLog::kCapacity << " hooked events):\n"
                                 << r.failure.window;
    // The Perfetto trace of the time before the violation, from a traced rerun of the seed.
    const bool traced = !r.failure.violations.empty();
    if (traced) std::ofstream(stem + ".trace.json") << check::violation_trace(failed, r.failure).dump() << "\n";
    fmt::print("{}", report);
    fmt::print("caught after {} seed{} ({:.1f} s, {} jobs)\n", failed.seed - args.first_seed + 1,
               failed.seed == args.first_seed ? "" : "s", secs, ex.jobs);
    if (!r.failure.window.empty()) fmt::print("last events before it:\n{}", last_lines(r.failure.window, 12));
    fmt::print("event log: {}.log\n", stem);
    if (traced) fmt::print("trace (Chrome/Perfetto JSON, ui.perfetto.dev): {}.trace.json\n", stem);
    fmt::print("replay: ipisim check --replay {}.replay.toml\n", stem);
    return 1;
}

}  // namespace ipisim::cli
