#include "cli/validate_model.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "config/table.h"
#include "kernel/version.h"
#include "probe/host_file.h"
#include "report/results_files.h"
#include "sim/registry.h"
#include "workload/workload.h"

namespace ipisim::cli {

namespace {

// A private machines directory holding host.toml without marks, removed when done.
class PlainMachineDir {
public:
    explicit PlainMachineDir(const std::string& host_toml)
        : dir_(std::filesystem::temp_directory_path() /
               fmt::format("ipisim-validate-{}", static_cast<long>(getpid()))) {
        const config::Document plain = probe::without_marks(config::Document::read_text(host_toml), host_toml);
        std::ostringstream text;
        text << toml::toml_formatter(plain.tree());
        report::write_text_file(dir_ / "host.toml", text.str());
    }
    ~PlainMachineDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    PlainMachineDir(const PlainMachineDir&) = delete;
    PlainMachineDir& operator=(const PlainMachineDir&) = delete;
    [[nodiscard]] std::string path() const { return dir_.string(); }

private:
    std::filesystem::path dir_;
};

}  // namespace

bool kernel_drains_lru_on_madvise(const std::string& release) {
    const std::optional<kernel::Version> v = kernel::Version::parse(release);
    return !v || *v < kernel::Version{6, 14};
}

ModelTlbFlush2 predict_tlb_flush2(const ModelRun& run) {
    const PlainMachineDir machines(run.host_toml);
    // The seed 000 experiment's windows (experiments/seed000_rar.toml); --quick halves them.
    const std::string params = fmt::format(
        "threads = {}\nmode = \"{}\"\nflush = \"ipi\"\nlru_add_drain = {}\nwarmup = \"{}\"\nmeasure = \"{}\"\n",
        run.tasks, run.mode, run.lru_add_drain ? "true" : "false", run.quick ? "1 ms" : "2 ms",
        run.quick ? "5 ms" : "10 ms");
    const config::Document doc = config::Document::parse(params, "(validate host: model parameters)");
    config::Table table = doc.root();
    workload::RunContext ctx;
    ctx.seed = run.seed;
    ctx.machines_dir = machines.path();
    ctx.machine = "host";
    std::unique_ptr<workload::Workload> w = sim::Registry<workload::Workload>::instance().create("tlb_flush2");
    if (!w) throw std::logic_error("the tlb_flush2 workload is not registered");
    const workload::RunResult r = w->run(table, ctx);
    ModelTlbFlush2 out;
    out.loops_per_sec = r.metrics.at("loops_per_sec").get<double>();
    out.ipis_per_loop = r.metrics.at("ipis_per_loop").get<double>();
    out.tlb_invalidation_share = r.metrics.at("tlb_invalidation_share").get<double>();
    out.fingerprint = r.fingerprint;
    return out;
}

}  // namespace ipisim::cli
