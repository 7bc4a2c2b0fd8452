#include "cli/validate_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

#include "config/error.h"
#include "kernel/version.h"
#include "probe/host_file.h"

namespace ipisim::cli {

namespace {

std::string quoted_list(const std::vector<std::string>& v) {
    std::vector<std::string> q;
    for (const std::string& s : v) q.push_back(fmt::format("\"{}\"", s));
    return fmt::format("[{}]", fmt::join(q, ", "));
}

// The release's leading MAJOR.MINOR ("6.18.44-fc-v1045" and "6.1.0+" give 6.18 and 6.1); a
// release with neither is a ConfigError at kernel.version naming the release.
kernel::Version release_version(const std::string& release) {
    if (const std::optional<kernel::Version> v = kernel::Version::parse(release)) return *v;
    size_t end = 0;
    bool dot = false;
    for (; end < release.size(); ++end) {
        const char c = release[end];
        if (std::isdigit(static_cast<unsigned char>(c)) != 0) continue;
        if (c == '.' && !dot) {
            dot = true;
            continue;
        }
        break;
    }
    const std::optional<kernel::Version> v = kernel::Version::parse(release.substr(0, end));
    if (!v) {
        throw config::ConfigError(
            "uname -r", 0, "kernel.version",
            fmt::format("the host's kernel release \"{}\" does not read as a Linux version MAJOR.MINOR", release));
    }
    return *v;
}

}  // namespace

std::string model_kernel_version(const std::string& release) {
    const kernel::Version v = release_version(release);
    const kernel::Version known = std::clamp(v, kernel::kOldestModeled, kernel::kNewestModeled);
    if (known != v) return known.text();
    return kernel::Version::parse(release) ? release : v.text();
}

std::string model_kernel_note(const std::string& release) {
    const kernel::Version v = release_version(release);
    const std::string why = kernel::unmodeled_version(v);
    if (why.empty()) return "";
    return fmt::format("the host runs {}, modelled as Linux {}: {}", release, model_kernel_version(release), why);
}

experiment::Experiment model_experiment(const ModelSetup& setup) {
    if (setup.seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        throw config::ConfigError("--seed", 0, "seed",
                                  fmt::format("must be at most {}", std::numeric_limits<int64_t>::max()));
    }
    if (setup.modes.empty() || setup.tasks.empty()) throw std::logic_error("validate host: no model cell");
    config::Document host = config::Document::parse(config::Document::read_text(setup.host_toml), setup.host_toml);
    const toml::node* arch = host.tree().get("arch");
    const bool x86 = arch != nullptr && arch->value<std::string>() == "x86";
    // The seed 000 experiment's windows (experiments/seed000_rar.toml); --quick halves them.
    const std::string text = fmt::format(
        "[experiment]\n"
        "name = \"validate_host_model\"\n"
        "description = \"validate host: tlb_flush2 on the probed host.toml\"\n"
        "workload = \"tlb_flush2\"\n"
        "machine = \"host\"\n"
        "seed = {}\n"
        "[kernel]\n"
        "version = \"{}\"\n"
        "{}"
        "[params]\n"
        "threads = {}\n"
        "mode = \"{}\"\n"
        "warmup = \"{}\"\n"
        "measure = \"{}\"\n"
        "[sweep]\n"
        "mode = {}\n"
        "threads = [{}]\n",
        setup.seed, model_kernel_version(setup.kernel_release), x86 ? "tlb_flush = \"ipi\"\n" : "", setup.tasks.front(),
        setup.modes.front(), setup.quick ? "1 ms" : "2 ms", setup.quick ? "5 ms" : "10 ms", quoted_list(setup.modes),
        fmt::join(setup.tasks, ", "));
    // Messages name the host file: the machine's values, moved, keep their lines in it.
    config::Document doc = config::Document::parse(text, setup.host_toml);
    doc.tree().insert_or_assign("machine", std::move(host.tree()));
    return experiment::load_experiment(std::move(doc), {});
}

experiment::PreparedExperiment prepare_model(const ModelSetup& setup) {
    return experiment::prepare_experiment(model_experiment(setup), "");
}

ModelOutcome run_model(experiment::PreparedExperiment& prepared) {
    ModelOutcome out;
    out.results = experiment::run_prepared(prepared, {});
    for (const report::ResultRow& row : out.results.rows) {
        ModelTlbFlush2 m;
        m.mode = row.params.at("mode").get<std::string>();
        m.tasks = row.params.at("threads").get<uint32_t>();
        m.loops_per_sec = row.metrics.at("loops_per_sec").get<double>();
        m.ipis_per_loop = row.metrics.at("ipis_per_loop").get<double>();
        m.tlb_invalidation_share = row.metrics.at("tlb_invalidation_share").get<double>();
        m.fingerprint = row.fingerprint;
        out.cells.push_back(std::move(m));
    }
    return out;
}

}  // namespace ipisim::cli
