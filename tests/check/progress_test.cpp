// The no-progress guard (issue 12): a run whose CPUs retire no work while some of them spin is
// stopped at the bound with a report of what every CPU was doing, instead of simulating the rest
// of its window; a run that makes progress, or whose CPUs only idle, is left alone.
#include <gtest/gtest.h>

#include <filesystem>

#include "check/monitors.h"
#include "check/mutants.h"
#include "cli/run_command.h"
#include "config/error.h"
#include "experiment/experiment.h"
#include "hw/cpu/spin.h"
#include "kernel/tlbflush/tlb_flush_protocol.h"
#include "report/results_files.h"
#include "sim/registry.h"
#include "support/kernel_world.h"
#include "support/paths.h"
#include "support/scratch_path.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using check::Monitors;
using check::ViolationKind;

namespace {

// Kernel work (progress) of `d` on `cpu`.
sim::Task<> work(hw::Cpu& cpu, sim::Picos d) {
    static const uint32_t label = hw::profile_label("test_work");
    auto scope = cpu.function(label, hw::Activity::kernel);
    co_await cpu.compute(d);
}

// A spin written as a polling loop (cpu_relax between loads) on a line nobody writes.
sim::Task<> poll_forever(hw::Cpu& cpu, hw::Memory& mem, hw::SimVar& flag) {
    static const uint32_t label = hw::profile_label("test_poll_forever");
    auto scope = cpu.function(label, hw::Activity::spin);
    for (;;) {
        const uint64_t v = co_await mem.load(cpu.id(), flag);
        if (v != 0) break;
        co_await cpu.compute(100_ns);
    }
}

TEST(ProgressMonitor, a_cpu_polling_a_line_nobody_writes_while_the_others_idle_stops_the_run_at_the_bound) {
    test::KernelWorld w("toy4");
    check::MonitorOptions o;
    o.no_progress_bound = 1_ms;
    Monitors mon(*w.plat, o);
    Monitors::Installed on(mon);
    hw::SimVar& flag = w.k->new_aligned_var("never_written", 0);
    w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> {
        co_await work(cpu, 10_us);  // progress, until 10 us
        co_await poll_forever(cpu, w.plat->memory(), flag);
    });
    w.k->run_on(1, [&](hw::Cpu& cpu) -> sim::Task<> { co_await work(cpu, 20_us); });
    w.k->boot();
    w.eng.run_until(10_s);
    // The last progress is cpu1's work at 20 us; the first poll after 1.02 ms stops the run.
    EXPECT_GE(w.eng.now(), 1020_us);
    EXPECT_LT(w.eng.now(), 1030_us);
    ASSERT_EQ(mon.total(), 1u);
    const check::Violation& v = mon.violations().front();
    EXPECT_EQ(v.kind, ViolationKind::no_progress);
    EXPECT_EQ(v.cpu, 0u);
    EXPECT_NE(v.diagnosis.find("no CPU retired user or kernel work from 20 us to 1.02"), std::string::npos)
        << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("cpu0 (spin): not waiting; frames: test_poll_forever"), std::string::npos)
        << v.diagnosis;
    EXPECT_NE(v.diagnosis.find("cpu1 (idle)"), std::string::npos) << v.diagnosis;
    // It stays stopped: a workload's next phase ends at once.
    const sim::Picos stopped = w.eng.now();
    w.eng.run_until(20_s);
    EXPECT_LT(w.eng.now() - stopped, 1_us);
    w.eng.shutdown();
}

TEST(ProgressMonitor, a_cpu_that_spins_while_another_works_is_progress_and_a_machine_that_only_idles_is_not_stuck) {
    test::KernelWorld w("toy4");
    check::MonitorOptions o;
    o.no_progress_bound = 1_ms;
    Monitors mon(*w.plat, o);
    Monitors::Installed on(mon);
    hw::SimVar& flag = w.k->new_aligned_var("written_late", 0);
    bool done = false;
    w.k->run_on(0, [&](hw::Cpu& cpu) -> sim::Task<> { co_await poll_forever(cpu, w.plat->memory(), flag); });
    w.k->run_on(1, [&](hw::Cpu& cpu) -> sim::Task<> {
        for (int i = 0; i < 50; ++i) co_await work(cpu, 100_us);  // 5 ms of work
        co_await w.k->write_once(cpu, flag, 1);
        done = true;
    });
    w.k->boot();
    w.eng.run_until(10_ms);
    EXPECT_TRUE(done);
    EXPECT_EQ(mon.total(), 0u);
    w.eng.shutdown();
}

// flush_tlb_multi() that polls a line nobody writes: every flushing task livelocks.
class PollForever final : public kernel::TlbFlushProtocol {
public:
    void attach(kernel::mm::Mm& m) override {
        TlbFlushProtocol::attach(m);
        flag_ = &m.mem().new_aligned_var("test_livelock_flag", 0);
    }
    sim::Task<> flush_tlb_multi(hw::Cpu& self, const hw::CpuMask& /*cpumask*/,
                                const kernel::mm::FlushTlbInfo& /*info*/) override {
        co_await poll_forever(self, mm().mem(), *flag_);
    }

private:
    hw::SimVar* flag_ = nullptr;
};

TEST(ProgressMonitor, a_livelocked_point_of_ipisim_run_stops_at_its_bound_and_the_run_exits_1_naming_it) {
    check::register_mutants();  // the registry complete before the first run reads it
    auto& r = sim::Registry<kernel::TlbFlushProtocol>::instance();
    if (!r.contains("test-poll-forever")) {
        r.add("test-poll-forever", "test only: flush_tlb_multi polls forever",
              [] { return std::make_unique<PollForever>(); });
    }
    const auto dir = test::scratch_path("ipisim_no_progress");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "e.toml").string();
    // 100 s of simulated polling without the guard.
    report::write_text_file(file,
                            "[experiment]\nname = \"no_progress\"\nworkload = \"tlb_flush2\"\nmachine = \"toy4\"\n"
                            "no_progress_bound = \"2 ms\"\n[kernel]\nversion = \"6.18\"\n"
                            "tlb_flush = \"test-poll-forever\"\n[params]\nthreads = 4\nmode = \"threads\"\n"
                            "warmup = \"50 s\"\nmeasure = \"50 s\"\n");
    cli::RunArgs args;
    args.experiment = file;
    args.out_dir = (dir / "out").string();
    args.output.console.quiet = true;
    args.output.format = "json";
    cli::DataDirs dirs;
    dirs.machines = ipisim::test::source_path("machines");
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int rc = cli::run_command(args, dirs);
    (void)testing::internal::GetCapturedStdout();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 1);
    EXPECT_NE(err.find("point 1: "), std::string::npos) << err;
    EXPECT_NE(err.find("no_progress"), std::string::npos) << err;
    const report::ExperimentResults res = report::read_results_json(dir / "out" / "results.json");
    ASSERT_EQ(res.rows.size(), 1u);
    EXPECT_EQ(res.rows[0].check["first"]["kind"], "no_progress");
    const std::string d = res.rows[0].check["first"]["diagnosis"];
    EXPECT_NE(d.find("the bound is 2 ms"), std::string::npos) << d;
    EXPECT_NE(d.find("test_poll_forever"), std::string::npos) << d;
    EXPECT_LT(res.rows[0].simulated_seconds, 0.01);
}

TEST(ProgressMonitor, a_zero_no_progress_bound_is_refused_at_its_line) {
    const auto dir = test::scratch_path("ipisim_no_progress_zero");
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "e.toml").string();
    report::write_text_file(file,
                            "[experiment]\nname = \"z\"\nworkload = \"tlb_flush2\"\nmachine = \"toy4\"\n"
                            "no_progress_bound = \"0 s\"\n[params]\nthreads = 1\nwarmup = \"1 us\"\n"
                            "measure = \"1 us\"\n");
    try {
        (void)experiment::load_experiment(file, {});
        ADD_FAILURE() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("e.toml:5: experiment.no_progress_bound: must be positive"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
