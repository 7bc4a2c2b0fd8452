#include "experiment/experiment.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "check/progress.h"
#include "config/names.h"
#include "config/toml_json.h"
#include "config/writer.h"
#include "kernel/kernel_config.h"
#include "report/published_value.h"
#include "sim/registry.h"

namespace ipisim::experiment {

namespace {

using config::contains;
using config::listed;

bool is_simple_name(const std::string& s) {
    if (s.empty() || s.front() == '.') return false;
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  c == '.';
        if (!ok) return false;
    }
    return true;
}

std::vector<std::string> keys_of(const config::SchemaInfo& info) {
    std::vector<std::string> out;
    for (const config::ParamInfo& p : info.params) out.push_back(p.key);
    return out;
}

bool same_kind(const toml::node& a, const toml::node& b) {
    return a.type() == b.type() || (a.is_floating_point() && b.is_integer());
}

// File order of a value: its line; values set by --set after every value of the file.
int order_of(const toml::node& n) {
    const auto& src = n.source();
    if (src.path == nullptr || *src.path == config::kOverrideSource) return std::numeric_limits<int>::max();
    return static_cast<int>(src.begin.line);
}

std::string override_key(const std::string& assignment) {
    std::string key = assignment.substr(0, assignment.find('='));
    while (!key.empty() && key.back() == ' ') key.pop_back();
    while (!key.empty() && key.front() == ' ') key.erase(key.begin());
    return key;
}

constexpr std::string_view kMachinePrefix = "machine.";

// A sanity bound on the points of one sweep: far above any experiment's (tens of points), far
// below what makes the point list itself a problem (a typo of a few zeros).
constexpr size_t kMaxSweepPoints = 1'000'000;

// Everything load_experiment reads, section by section.
class Loader {
public:
    Loader(Experiment& e, const std::vector<std::string>& doc_overrides)
        : e_(e), doc_overrides_(doc_overrides), root_(e.document.root()) {}

    void read() {
        read_experiment_table();
        read_machine();
        read_sections();
        if (auto sweep = root_.table_optional("sweep")) read_sweep(*sweep);
        check_overrides_of_swept_keys();
        if (auto published = root_.table_optional("published")) e_.published = read_published(*published);
        if (auto shape = root_.table_optional("report")) {
            e_.shape = report::read_seed_shape(*shape, e_.row_params(), keys_of(e_.workload.metrics));
        }
        root_.finish();
    }

private:
    [[nodiscard]] const std::string& workload() const { return e_.table.workload; }
    [[nodiscard]] bool needs_machine() const { return e_.workload.traits.needs_machine; }

    void read_experiment_table() {
        config::Table t = root_.table("experiment");
        e_.table = experiment_schema().read(t);
        e_.machine_file = t.file_of("machine");
        e_.machine_line = t.line_of("machine");
        e_.workload = sim::Registry<workload::Workload>::instance().create(workload())->info();
        if (e_.table.machine && !needs_machine()) {
            t.fail("machine",
                   fmt::format("the {} workload runs no machine model; remove experiment.machine", workload()));
        }
        experiment_line_ = t.line();
    }

    void read_machine() {
        toml::table& tree = e_.document.tree();
        if (root_.has("machine")) {
            if (!needs_machine())
                root_.fail("machine", fmt::format("the {} workload runs no machine model", workload()));
            if (!root_.raw("machine")->is_table()) {
                root_.fail("machine", fmt::format("expected a table (a machine file's tables), got {}",
                                                  config::type_name(*root_.raw("machine"))));
            }
            toml::table machine = std::move(*tree.get_as<toml::table>("machine"));
            tree.erase("machine");
            e_.embedded_machine = config::Document::adopt(std::move(machine), e_.file);
        }
        if (needs_machine() && !e_.table.machine && !e_.embedded_machine) {
            throw config::ConfigError(
                e_.file, experiment_line_, "experiment.machine",
                fmt::format("the {} workload needs a machine: name one or embed a [machine] table", workload()));
        }
        if (!needs_machine() && !e_.machine_overrides.empty()) {
            throw config::ConfigError(std::string(config::kOverrideSource), 0,
                                      std::string(kMachinePrefix) + override_key(e_.machine_overrides.front()),
                                      fmt::format("the {} workload runs no machine model", workload()));
        }
    }

    void read_sections() {
        toml::table& tree = e_.document.tree();
        if (!tree.contains("params")) tree.insert("params", toml::table{});
        e_.param_keys = root_.table("params").keys();
        if (!needs_machine()) {
            if (root_.has("kernel")) root_.fail("kernel", fmt::format("the {} workload runs no kernel", workload()));
            return;
        }
        if (!tree.contains("kernel")) tree.insert("kernel", toml::table{});
        e_.kernel_keys = root_.table("kernel").keys();
    }

    void add_sweep_key(config::Table& t, const std::string& key, bool kernel,
                       std::vector<std::pair<int, SweepKey>>& out) {
        const toml::node* values = t.raw(key);
        const toml::array* arr = values->as_array();
        if (arr == nullptr) t.fail(key, fmt::format("expected an array of values, got {}", config::type_name(*values)));
        if (arr->empty()) t.fail(key, "needs at least one value");
        const toml::table& section = *e_.document.tree().get_as<toml::table>(kernel ? "kernel" : "params");
        if (kernel && !contains(keys_of(kernel::kernel_schema().info()), key)) {
            t.fail(key, fmt::format("\"{}\" is not a [kernel] key ({})", key,
                                    listed(keys_of(kernel::kernel_schema().info()))));
        }
        if (!kernel && !contains(keys_of(e_.workload.params), key)) {
            t.fail(key, fmt::format("\"{}\" is not a parameter of workload {} (its parameters: {})", key, workload(),
                                    listed(keys_of(e_.workload.params))));
        }
        const std::string base_name = fmt::format("{}.{}", kernel ? "kernel" : "params", key);
        if (const toml::node* base = section.get(key)) {
            for (size_t i = 0; i < arr->size(); ++i) {
                const toml::node& v = *arr->get(i);
                if (!same_kind(*base, v)) {
                    t.fail_at(v, fmt::format("{}[{}]", t.dotted(key), i),
                              fmt::format("expected {} like {}, got {}", config::type_name(*base), base_name,
                                          config::type_name(v)));
                }
            }
        }
        // Each value is one point: a repeated one would run the same point twice, as two rows
        // the shape table and `ipisim compare` cannot tell apart (a typo, most likely).
        std::map<std::string, size_t> first_index;  // a value's text -> where it first appears
        for (size_t i = 0; i < arr->size(); ++i) {
            const auto [at, fresh] = first_index.emplace(config::value_text(*arr->get(i)), i);
            if (!fresh) {
                t.fail_at(*arr->get(i), fmt::format("{}[{}]", t.dotted(key), i),
                          fmt::format("{} repeats {}[{}]: each value of a sweep is one point", at->first, t.dotted(key),
                                      at->second));
            }
        }
        t.mark_used(key);
        out.emplace_back(order_of(*values), SweepKey{kernel, key, kernel ? "kernel." + key : key, t.dotted(key), arr});
    }

    void read_sweep(config::Table sweep) {
        std::vector<std::pair<int, SweepKey>> keys;
        for (const std::string& key : sweep.keys()) {
            if (key == "kernel" && sweep.raw(key)->is_table()) {
                if (!needs_machine()) sweep.fail(key, fmt::format("the {} workload runs no kernel", workload()));
                config::Table kernel = sweep.table(key);
                for (const std::string& sub : kernel.keys()) add_sweep_key(kernel, sub, true, keys);
            } else {
                add_sweep_key(sweep, key, false, keys);
            }
        }
        // [sweep] order is file order, the kernel.X keys among the others (--set ones last).
        std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        size_t points = 1;
        for (auto& [order, key] : keys) {
            if (__builtin_mul_overflow(points, key.values->size(), &points)) {
                sweep.fail_at(*key.values, key.path, "the sweep has more than 2^64 points");
            }
            if (points > kMaxSweepPoints) {
                sweep.fail_at(*key.values, key.path,
                              fmt::format("the sweep has {} points, more than the {} one experiment may have", points,
                                          kMaxSweepPoints));
            }
            e_.sweep.push_back(std::move(key));
        }
    }

    // A value of [params] or [kernel] that --set overrides while [sweep] sweeps it would be
    // ignored: an error, never a silent no-op.
    void check_overrides_of_swept_keys() const {
        for (const std::string& o : doc_overrides_) {
            const std::string key = override_key(o);
            for (const SweepKey& s : e_.sweep) {
                if (key == (s.kernel ? "kernel." : "params.") + s.key) {
                    // A sweep that --set itself gave has no line in the file.
                    const int line = order_of(*s.values);
                    const std::string where = line == std::numeric_limits<int>::max()
                                                  ? std::string("set by --set")
                                                  : fmt::format("at {}:{}", e_.file, line);
                    throw config::ConfigError(
                        std::string(config::kOverrideSource), 0, key,
                        fmt::format("is swept ({} {}); override {} instead", s.path, where, s.path));
                }
            }
        }
    }

    // A published parameter must be one rows have, with a value of the same kind.
    void published_param(config::Table& t, const std::string& key, const std::string& name,
                         nlohmann::ordered_json& out) const {
        if (!contains(e_.row_params(), name)) {
            t.fail(key, name.rfind("kernel.", 0) == 0 ? fmt::format("\"{}\" is not a key of [kernel]", name)
                                                      : fmt::format("\"{}\" is not a key of [params]", name));
        }
        const PointTables base = base_tables(e_);
        const bool kernel = name.rfind("kernel.", 0) == 0;
        const toml::node* like = kernel ? base.kernel.raw(name.substr(7)) : base.params.raw(name);
        const toml::node& v = *t.raw(key);
        if (like != nullptr && !same_kind(*like, v)) {
            t.fail(key,
                   fmt::format("expected {} like {}, got {}", config::type_name(*like), name, config::type_name(v)));
        }
        t.mark_used(key);
        out[name] = config::to_json(v);
        check_published_value_exists(t, key, name, like);
    }

    // True when a --set override changes what the rows have for `name` (its value or sweep).
    bool overridden(const std::string& name) const {
        for (const std::string& o : doc_overrides_) {
            const std::string key = override_key(o);
            if (key == name || key == "params." + name || key == "sweep." + name) return true;
        }
        return false;
    }

    // A published value no point has (neither the key's value nor one of its sweep values) is
    // never compared: an error at the row, unless --set changed that key. The sweep is a full
    // grid, so a row whose every value some point has matches a point.
    void check_published_value_exists(config::Table& t, const std::string& key, const std::string& name,
                                      const toml::node* base) const {
        if (overridden(name)) return;
        std::vector<nlohmann::ordered_json> values;
        for (const SweepKey& s : e_.sweep) {
            if (s.name != name) continue;
            for (const toml::node& n : *s.values) values.push_back(config::to_json(n));
        }
        if (values.empty() && base != nullptr) values.push_back(config::to_json(*base));
        if (values.empty()) return;  // a kernel default the file does not set: not known here
        const nlohmann::ordered_json v = config::to_json(*t.raw(key));
        for (const nlohmann::ordered_json& x : values) {
            if (report::same_published_value(v, x)) return;
        }
        std::vector<std::string> texts;
        for (const nlohmann::ordered_json& x : values) texts.push_back(x.is_string() ? x.get<std::string>() : x.dump());
        t.fail(key, fmt::format("no point has {} = {}, so the row is never compared (the points have: {})", name,
                                v.is_string() ? v.get<std::string>() : v.dump(), listed(texts)));
    }

    report::PublishedRow read_published_row(config::Table row) const {
        report::PublishedRow out;
        config::Table p = row.table("params");
        for (const std::string& key : p.keys()) {
            if (key == "kernel" && p.raw(key)->is_table()) {
                config::Table k = p.table(key);
                for (const std::string& sub : k.keys()) published_param(k, sub, "kernel." + sub, out.params);
                k.finish();
            } else {
                published_param(p, key, key, out.params);
            }
        }
        config::Table m = row.table("metrics");
        const std::vector<std::string> metrics = keys_of(e_.workload.metrics);
        for (const std::string& key : m.keys()) {
            m.get<double>(key);  // a number, finite
            if (!contains(metrics, key)) {
                m.fail(key, fmt::format("workload {} reports no metric \"{}\" (it reports: {})", workload(), key,
                                        listed(metrics)));
            }
        }
        out.metrics = config::to_json(*row.raw("metrics"));
        out.note = row.get_or<std::string>("note", "");
        out.file = m.file();
        out.line = m.line();
        out.key = m.path();
        row.finish();
        return out;
    }

    report::Published read_published(config::Table t) const {
        report::Published out;
        out.source = t.get_or<std::string>("source", "");
        if (t.has("setup")) {
            config::Table setup = t.table("setup");
            for (const std::string& key : setup.keys()) {
                if (key == "kernel" && setup.raw(key)->is_table()) {
                    config::Table k = setup.table(key);
                    for (const std::string& sub : k.keys()) published_param(k, sub, "kernel." + sub, out.setup);
                    k.finish();
                } else {
                    published_param(setup, key, key, out.setup);
                }
            }
            setup.finish();
        }
        if (t.has("rows")) {
            for (const config::Table& row : t.table_array("rows")) {
                report::PublishedRow r = read_published_row(row);
                for (const auto& [key, value] : out.setup.items()) {
                    if (!r.params.contains(key)) r.params[key] = value;  // every row carries its setup
                }
                out.rows.push_back(std::move(r));
            }
        }
        t.finish();
        return out;
    }

    Experiment& e_;
    const std::vector<std::string>& doc_overrides_;
    config::Table root_;
    int experiment_line_ = 0;
};

}  // namespace

const config::Schema<ExperimentTable>& experiment_schema() {
    static const auto s =
        config::Schema<ExperimentTable>("experiment", "what runs: the workload, its machine and seed")
            .param("name", &ExperimentTable::name, "names the default output directory results/NAME")
            .check([](const ExperimentTable& t) -> std::string {
                if (is_simple_name(t.name)) return "";
                return "must be a simple name (letters, digits, '_', '-', '.'): it names the output directory";
            })
            .param("description", &ExperimentTable::description, "one line for listings")
            .def(std::string())
            .param("workload", &ExperimentTable::workload, "a registered workload (ipisim list)")
            .check([](const ExperimentTable& t) -> std::string {
                const auto& workloads = sim::Registry<workload::Workload>::instance();
                if (workloads.contains(t.workload)) return "";
                return fmt::format("unknown workload \"{}\" (known: {})", t.workload, workloads.names());
            })
            .param("seed", &ExperimentTable::seed, "root of every random stream of the run")
            .def(int64_t{1})
            .check([](const ExperimentTable& t) { return t.seed < 0 ? "must not be negative" : ""; })
            .param(
                "runs", &ExperimentTable::runs,
                "runs of every point, run r with seed + r: the metrics are their mean (a published \"average of N "
                "runs\"), each run's values are kept in metrics_runs; the first run gives the profile, latencies and "
                "trace, the check and the fingerprint cover every run")
            .def(int64_t{1})
            .check([](const ExperimentTable& t) -> std::string {
                if (t.runs < 1 || t.runs > 64) return "must be 1 to 64";
                // Run r's seed is seed + r: the last run's must still be a seed.
                if (t.seed > std::numeric_limits<int64_t>::max() - (t.runs - 1)) {
                    return fmt::format("{} runs from experiment.seed {} would need seeds past {}", t.runs, t.seed,
                                       std::numeric_limits<int64_t>::max());
                }
                return "";
            })
            .param("machine", &ExperimentTable::machine,
                   "machines/NAME.toml, or the name of the machine [machine] embeds")
            .check([](const ExperimentTable& t) -> std::string {
                if (!t.machine || is_simple_name(*t.machine)) return "";
                return "must be a machine name (the stem of a file in the machines directory)";
            })
            .param("no_progress_bound", &ExperimentTable::no_progress_bound,
                   "stop a point whose CPUs retire no work for this long of simulated time while some wait or spin")
            .def(check::kDefaultNoProgressBound)
            .check([](const ExperimentTable& t) {
                return t.no_progress_bound == sim::Picos::zero() ? "must be positive" : "";
            });
    return s;
}

namespace {
const config::SchemaRegistration registration("experiment", [] { return experiment_schema().info(); });
}  // namespace

namespace {

// The file's own [params] and [kernel] values (before --set) by row name, its swept keys and
// its machine.
report::PublishedScope file_setup_of(const toml::table& tree) {
    report::PublishedScope out;
    if (const toml::table* p = tree.get_as<toml::table>("params")) {
        for (const auto& [key, value] : *p) out.values[std::string(key.str())] = config::to_json(value);
    }
    if (const toml::table* k = tree.get_as<toml::table>("kernel")) {
        for (const auto& [key, value] : *k) out.values["kernel." + std::string(key.str())] = config::to_json(value);
    }
    if (const toml::table* s = tree.get_as<toml::table>("sweep")) {
        for (const auto& [key, value] : *s) {
            if (const toml::table* k = value.as_table(); k != nullptr && key.str() == "kernel") {
                for (const auto& [sub, v] : *k) out.swept.push_back("kernel." + std::string(sub.str()));
            } else {
                out.swept.emplace_back(key.str());
            }
        }
    }
    if (const toml::table* x = tree.get_as<toml::table>("experiment")) {
        if (const auto* m = x->get_as<std::string>("machine")) out.machine = m->get();
    }
    return out;
}

}  // namespace

Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
    return load_experiment(config::Document::load(path), overrides);
}

Experiment load_experiment(config::Document document, const std::vector<std::string>& overrides) {
    Experiment e;
    e.file = document.name();
    e.document = std::move(document);
    e.file_setup = file_setup_of(e.document.tree());
    std::vector<std::string> doc_overrides;
    for (const std::string& o : overrides) {
        if (override_key(o).rfind(kMachinePrefix, 0) == 0) {
            e.machine_overrides.push_back(o.substr(o.find(kMachinePrefix) + kMachinePrefix.size()));
        } else {
            e.document.apply_override(o);
            doc_overrides.push_back(o);
        }
    }
    e.file_setup.machine_overrides = e.machine_overrides;
    Loader(e, doc_overrides).read();
    if (e.embedded_machine) {
        for (const std::string& o : e.machine_overrides) {
            try {
                e.embedded_machine->apply_override(o);
            } catch (const config::ConfigError& err) {
                throw config::ConfigError(err.file(), err.line(), std::string(kMachinePrefix) + err.key(),
                                          err.problem());
            }
        }
    }
    return e;
}

}  // namespace ipisim::experiment
