// experiment/uncertainty.h and machine_edit.h: the Latin hypercube uses every stratum of every
// cost once, quantiles interpolate between order statistics, wide ranges are sampled on a log
// scale, every ranged cost of every shipped machine can be set to its range ends, and
// `--uncertainty` on a toy experiment gives intervals around the nominal value, the same for
// any number of threads, and none where the range has no width.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/machine_edit.h"
#include "experiment/runner.h"
#include "experiment/uncertainty.h"
#include "hw/machine.h"
#include "support/paths.h"
#include "support/read_file.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kMachines = ipisim::test::source_path("machines");

void replace(std::string& text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
}

// A machines folder holding toy4_arm with the given irq_entry and fabric same_l3 ranges, and an
// ipi_latency experiment on it (2 points).
std::string toy_with_ranges(const std::string& name, const std::string& irq_range, const std::string& fabric_range,
                            const std::string& router_range = "") {
    const auto dir = ::ipisim::test::scratch_path(("ipisim_uncertainty_" + name));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "machines");
    std::string machine = test::read_file(kMachines + "/toy4_arm.toml");
    replace(machine, "irq_entry = \"200 ns\"",
            "irq_entry = { value = \"200 ns\", mark = \"A\", range = " + irq_range + ", source = \"test\" }");
    if (!fabric_range.empty()) {
        replace(machine, "same_l3 = \"500 ns\"",
                "same_l3 = { value = \"500 ns\", mark = \"A\", range = " + fabric_range + ", source = \"test\" }");
    }
    if (!router_range.empty()) {
        replace(machine, "router_service = \"0 ns\"",
                "router_service = { value = \"0 ns\", mark = \"A\", range = " + router_range + ", source = \"test\" }");
    }
    std::ofstream(dir / "machines" / "toyr.toml") << machine;
    std::ofstream(dir / "toy.toml") << "[experiment]\nname = \"toy\"\nworkload = \"ipi_latency\"\nmachine = \"toyr\"\n"
                                       "[kernel]\nversion = \"6.6\"\n[params]\nrounds = 2\nsender = 0\n"
                                       "[sweep]\nsender = [0, 2]\n";
    return dir.string();
}

PreparedExperiment prepare_toy(const std::string& dir) {
    return prepare_experiment(load_experiment(dir + "/toy.toml", {}), dir + "/machines");
}

TEST(Uncertainty, a_latin_hypercube_uses_every_stratum_of_every_cost_once) {
    const auto u = latin_hypercube(3, 8, 42);
    ASSERT_EQ(u.size(), 8U);
    for (size_t k = 0; k < 3; ++k) {
        std::vector<size_t> strata;
        for (const auto& s : u) {
            ASSERT_GE(s[k], 0.0);
            ASSERT_LT(s[k], 1.0);
            strata.push_back(static_cast<size_t>(s[k] * 8));
        }
        std::sort(strata.begin(), strata.end());
        for (size_t s = 0; s < 8; ++s) EXPECT_EQ(strata[s], s) << "cost " << k;
    }
    EXPECT_EQ(latin_hypercube(3, 8, 42), u);
    EXPECT_NE(latin_hypercube(3, 8, 43), u);
    // Batch 0 is the experiment's first hypercube; later batches are other draws of the seed.
    EXPECT_EQ(latin_hypercube(3, 8, 42, 0), u);
    EXPECT_NE(latin_hypercube(3, 8, 42, 1), u);
    EXPECT_EQ(latin_hypercube(3, 8, 42, 1), latin_hypercube(3, 8, 42, 1));
}

TEST(Uncertainty, quantiles_interpolate_between_order_statistics) {
    const std::vector<double> v = {5, 1, 4, 2, 3};
    EXPECT_DOUBLE_EQ(quantile(v, 0.5), 3.0);
    EXPECT_DOUBLE_EQ(quantile(v, 0.05), 1.2);
    EXPECT_DOUBLE_EQ(quantile(v, 0.95), 4.8);
    EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1.0);
    EXPECT_DOUBLE_EQ(quantile(v, 1.0), 5.0);
}

TEST(Uncertainty, a_range_wider_than_ten_times_is_sampled_on_a_log_scale) {
    config::CostValue wide{"coherence.line_occupancy", config::ParamType::duration, 5000, {}, "", 0};
    RangedCost w{&wide, 1000, 100000, true};
    EXPECT_DOUBLE_EQ(value_at(w, 0.5), 10000);  // 1 ns .. 100 ns: the middle is 10 ns
    RangedCost narrow{&wide, 1000, 9000, false};
    EXPECT_DOUBLE_EQ(value_at(narrow, 0.5), 5000);
    EXPECT_DOUBLE_EQ(value_at(narrow, 0.0), 1000);
    config::CostValue count{"cpu.smt_throughput_percent", config::ParamType::integer, 60, {}, "", 0};
    EXPECT_DOUBLE_EQ(value_at(RangedCost{&count, 50, 75, false}, 0.3), 58);  // 57.5 rounds to a whole value
}

// Each end is written where the file has the cost, and reads back with its value and mark, or
// the machine's own checks refuse it (a range crossing a constraint between costs).
TEST(Uncertainty, every_ranged_cost_of_every_shipped_machine_can_be_set_to_its_range_ends) {
    size_t loaded = 0;
    for (const std::string& name : hw::list_machines(kMachines)) {
        const config::Document doc = config::Document::load(kMachines + "/" + name + ".toml");
        const hw::MachineSpec spec = hw::load_machine(doc, name);
        for (const RangedCost& c : ranged_costs(spec)) {
            for (double u : {0.0, 1.0}) {
                const double v = value_at(c, u);
                const config::Document edited_doc = with_costs(doc, {{c.cost, v}});
                try {
                    const hw::MachineSpec edited = hw::load_machine(edited_doc, name);
                    const config::CostValue* after = edited.cost(c.cost->key);
                    ASSERT_NE(after, nullptr) << name << " " << c.cost->key;
                    EXPECT_DOUBLE_EQ(after->value, v) << name << " " << c.cost->key;
                    EXPECT_EQ(after->provenance.mark, c.cost->provenance.mark) << name << " " << c.cost->key;
                    ++loaded;
                } catch (const config::ConfigError& e) {
                    EXPECT_FALSE(e.key().empty()) << name << " " << c.cost->key << ": " << e.what();
                }
            }
        }
        // The document itself is untouched (with_costs copies the tree).
        for (const config::CostValue& c : hw::load_machine(doc, name).costs) {
            EXPECT_DOUBLE_EQ(c.value, spec.cost(c.key)->value) << name << " " << c.key;
        }
    }
    EXPECT_GT(loaded, 300U);
}

TEST(Uncertainty, a_sampled_machine_its_own_checks_refuse_is_replaced_by_one_drawn_from_the_next_batch) {
    // router_service up to 1 us, but the toy's self delivery is 500 ns: the upper half of the
    // strata of each batch of 8 cannot exist, so a second batch supplies the other 4 machines.
    const std::string dir = toy_with_ranges("refused", "[\"100 ns\", \"300 ns\"]", "", "[\"0 ns\", \"1 us\"]");
    PreparedExperiment p = prepare_toy(dir);
    run_uncertainty({&p}, 8, 2);
    EXPECT_EQ(p.uncertainty["samples"], 8);
    EXPECT_EQ(p.uncertainty["feasible"], 8);
    const size_t drawn = p.uncertainty["drawn"].get<size_t>();
    EXPECT_GT(drawn, 8U + 4U);  // all of batch 0, then batch 1 until its 4th feasible machine
    EXPECT_LE(drawn, 16U);
    ASSERT_EQ(p.uncertainty["refused"].size(), drawn - 8);
    EXPECT_NE(p.uncertainty["refused"][0]["problem"].get<std::string>().find("router_service"), std::string::npos);
    // Sample numbers run on over the batches: batch 1's are 8-15.
    EXPECT_GE(p.uncertainty["refused"].back()["sample"].get<size_t>(), 8U);
    ASSERT_EQ(p.spreads.size(), 2U);
    EXPECT_TRUE(p.spreads[0].interval.contains("ns_per_call"));
    // With one batch only, as before: the intervals rest on the 4 machines that can exist.
    PreparedExperiment once = prepare_toy(dir);
    run_uncertainty({&once}, 8, 2, {}, 1);
    EXPECT_EQ(once.uncertainty["feasible"], 4);
    EXPECT_EQ(once.uncertainty["drawn"], 8);
    EXPECT_EQ(once.uncertainty["refused"].size(), 4U);
}

TEST(Uncertainty, intervals_contain_the_nominal_value_of_a_monotone_metric) {
    const std::string dir = toy_with_ranges("monotone", "[\"100 ns\", \"300 ns\"]", "[\"400 ns\", \"600 ns\"]");
    PreparedExperiment p = prepare_toy(dir);
    ASSERT_EQ(ranged_costs(*p.machine->spec).size(), 2U);
    run_uncertainty({&p}, 8, 1);
    ASSERT_EQ(p.spreads.size(), 2U);
    EXPECT_EQ(p.uncertainty["samples"], 8);
    EXPECT_EQ(p.uncertainty["costs"].size(), 2U);
    for (size_t point = 0; point < 2; ++point) {
        const report::ResultRow row = run_point(p, point);
        ASSERT_TRUE(row.metrics_interval.contains("ns_per_call"));
        const double nominal = row.metrics["ns_per_call"].get<double>();
        const double lo = row.metrics_interval["ns_per_call"][0].get<double>();
        const double hi = row.metrics_interval["ns_per_call"][1].get<double>();
        EXPECT_LT(lo, nominal) << point;
        EXPECT_GT(hi, nominal) << point;
        const double median = row.metrics_median["ns_per_call"].get<double>();
        EXPECT_GT(median, lo);
        EXPECT_LT(median, hi);
        // A count the costs do not move has a zero-width interval.
        EXPECT_EQ(row.metrics_interval["ipis"][0], row.metrics_interval["ipis"][1]);
    }
}

TEST(Uncertainty, samples_on_one_or_two_threads_give_the_same_intervals) {
    const std::string dir = toy_with_ranges("jobs", "[\"100 ns\", \"300 ns\"]", "[\"400 ns\", \"600 ns\"]");
    PreparedExperiment one = prepare_toy(dir);
    PreparedExperiment two = prepare_toy(dir);
    run_uncertainty({&one}, 6, 1);
    run_uncertainty({&two}, 6, 2);
    ASSERT_EQ(one.spreads.size(), two.spreads.size());
    for (size_t k = 0; k < one.spreads.size(); ++k) {
        EXPECT_EQ(one.spreads[k].interval.dump(), two.spreads[k].interval.dump());
        EXPECT_EQ(one.spreads[k].median.dump(), two.spreads[k].median.dump());
    }
    EXPECT_EQ(one.uncertainty.dump(), two.uncertainty.dump());
}

TEST(Uncertainty, a_cost_with_a_zero_width_range_gives_a_zero_width_interval_at_the_nominal_value) {
    const std::string dir = toy_with_ranges("zero", "[\"200 ns\", \"200 ns\"]", "");
    PreparedExperiment p = prepare_toy(dir);
    run_uncertainty({&p}, 4, 2);
    for (size_t point = 0; point < 2; ++point) {
        const report::ResultRow row = run_point(p, point);
        ASSERT_FALSE(row.metrics_interval.empty());
        for (const auto& [metric, iv] : row.metrics_interval.items()) {
            EXPECT_EQ(iv[0], iv[1]) << metric;
            EXPECT_EQ(iv[0].get<double>(), row.metrics[metric].get<double>()) << metric;
        }
    }
}

TEST(Uncertainty, the_nominal_run_keeps_its_fingerprint) {
    const std::string dir = toy_with_ranges("fingerprint", "[\"100 ns\", \"300 ns\"]", "");
    PreparedExperiment plain = prepare_toy(dir);
    PreparedExperiment sampled = prepare_toy(dir);
    run_uncertainty({&sampled}, 4, 1);
    for (size_t point = 0; point < 2; ++point) {
        const report::ResultRow a = run_point(plain, point);
        const report::ResultRow b = run_point(sampled, point);
        EXPECT_EQ(a.fingerprint, b.fingerprint);
        EXPECT_EQ(a.metrics.dump(), b.metrics.dump());
        EXPECT_TRUE(a.metrics_interval.empty());
    }
}

}  // namespace
// A sampled machine whose run the checker's monitors fail (a deadlock, a stuck wait, no
// progress) is named in the plan's description, so that it cannot pass as a slow machine in the
// interval: here every sample of the toy ipi_latency experiment breaks a no-progress bound of
// 1 ns (its senders spin for the IPI round trip far longer).
TEST(Uncertainty, sampled_runs_the_checker_fails_are_named_with_their_sample_point_and_diagnosis) {
    const std::string dir = toy_with_ranges("violations", "[\"100 ns\", \"300 ns\"]", "");
    std::ofstream(dir + "/toy.toml") << "[experiment]\nname = \"toy\"\nworkload = \"ipi_latency\"\nmachine = \"toyr\"\n"
                                        "no_progress_bound = \"1 ns\"\n"
                                        "[kernel]\nversion = \"6.6\"\n[params]\nrounds = 2\nsender = 0\n"
                                        "[sweep]\nsender = [0, 2]\n";
    PreparedExperiment p = prepare_toy(dir);
    run_uncertainty({&p}, 4, 2);
    EXPECT_EQ(p.uncertainty["feasible"], 4);
    ASSERT_TRUE(p.uncertainty.contains("violations"));
    const nlohmann::ordered_json& v = p.uncertainty["violations"];
    ASSERT_EQ(v.size(), 8U);  // every sample at both points, in job order
    EXPECT_EQ(v[0]["sample"], 0);
    EXPECT_EQ(v[0]["point"], 0);
    EXPECT_EQ(v[1]["sample"], 0);
    EXPECT_EQ(v[1]["point"], 1);
    EXPECT_EQ(v[7]["sample"], 3);
    EXPECT_EQ(v[0]["check"]["first"]["kind"], "no_progress");
    // Without the bound, the same samples pass and nothing is named.
    PreparedExperiment plain = prepare_toy(toy_with_ranges("no_violations", "[\"100 ns\", \"300 ns\"]", ""));
    run_uncertainty({&plain}, 4, 2);
    EXPECT_FALSE(plain.uncertainty.contains("violations"));
}

// An experiment left with one feasible machine (one batch drawn) gets no interval, and its sample runs are still
// consumed in job order: the next experiment of the same call gets its own metrics (it did not
// before 2026-12-06, when it would have read the first one's).
TEST(Uncertainty, an_experiment_with_one_feasible_machine_does_not_shift_the_next_ones_samples) {
    // As in a_sampled_machine_its_own_checks_refuse_is_left_out_and_counted, with 2 samples: the
    // lower stratum is feasible, the upper one refused.
    const std::string one_dir = toy_with_ranges("one_feasible", "[\"100 ns\", \"300 ns\"]", "", "[\"0 ns\", \"1 us\"]");
    // Other points than the next experiment's, so that misplaced runs would show.
    std::ofstream(one_dir + "/toy.toml") << "[experiment]\nname = \"toy\"\nworkload = \"ipi_latency\"\n"
                                            "machine = \"toyr\"\n[kernel]\nversion = \"6.6\"\n[params]\nrounds = 9\n"
                                            "sender = 0\n[sweep]\nsender = [1, 3]\n";
    PreparedExperiment one = prepare_toy(one_dir);
    PreparedExperiment next = prepare_toy(toy_with_ranges("next", "[\"100 ns\", \"300 ns\"]", ""));
    PreparedExperiment alone = prepare_toy(toy_with_ranges("alone", "[\"100 ns\", \"300 ns\"]", ""));
    run_uncertainty({&one, &next}, 2, 2, {}, 1);
    run_uncertainty({&alone}, 2, 2, {}, 1);
    EXPECT_EQ(one.uncertainty["feasible"], 1);
    EXPECT_TRUE(one.spreads.empty());
    ASSERT_EQ(next.spreads.size(), 2U);
    ASSERT_EQ(alone.spreads.size(), 2U);
    for (size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(next.spreads[k].interval, alone.spreads[k].interval) << k;
        EXPECT_EQ(next.spreads[k].median, alone.spreads[k].median) << k;
    }
}

}  // namespace ipisim::experiment
