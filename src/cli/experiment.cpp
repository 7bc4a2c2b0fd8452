#include "cli/experiment.h"

#include <fmt/format.h>

#include "cli/toml_json.h"
#include "config/writer.h"
#include "sim/registry.h"
#include "workload/workload.h"

namespace ipisim::cli {

namespace {

bool is_simple_name(const std::string& s) {
    if (s.empty() || s.front() == '.') return false;
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  c == '.';
        if (!ok) return false;
    }
    return true;
}

// The file with the overrides applied and the defaults written in.
config::Document resolved_document(const Experiment& e) {
    config::Document doc = config::Document::parse(e.text, e.file);
    for (const std::string& o : e.overrides) doc.apply_override(o);
    toml::table& tree = doc.tree();
    if (toml::table* exp = tree["experiment"].as_table(); exp != nullptr && !exp->contains("seed")) {
        exp->insert("seed", int64_t{1});
    }
    if (!tree.contains("params")) tree.insert("params", toml::table{});
    return doc;
}

void read_experiment_table(config::Table& root, Experiment& e) {
    config::Table t = root.table("experiment");
    e.name = t.get<std::string>("name");
    if (!is_simple_name(e.name)) {
        t.fail("name",
               "must be a simple name (letters, digits, '_', '-', '.'): it names the output "
               "directory");
    }
    e.description = t.get_or<std::string>("description", "");
    e.workload = t.get<std::string>("workload");
    const auto& workloads = sim::Registry<workload::Workload>::instance();
    if (!workloads.contains(e.workload)) {
        t.fail("workload", fmt::format("unknown workload \"{}\" (known: {})", e.workload, workloads.names()));
    }
    const int64_t seed = t.get_or<int64_t>("seed", 1);
    if (seed < 0) t.fail("seed", "must not be negative");
    e.seed = static_cast<uint64_t>(seed);
    e.machine = t.get_or<std::string>("machine", "");
    e.machine_file = t.file_of("machine");
    e.machine_line = t.line_of("machine");
    t.finish();
}

bool same_kind(const toml::node& a, const toml::node& b) {
    return a.type() == b.type() || (a.is_floating_point() && b.is_integer());
}

void read_sweep(config::Table sweep, const config::Table& params, Experiment& e) {
    for (const std::string& key : sweep.keys()) {
        const toml::node* values = sweep.raw(key);
        const toml::array* arr = values->as_array();
        if (arr == nullptr)
            sweep.fail(key, fmt::format("expected an array of values, got {}", config::type_name(*values)));
        if (arr->empty()) sweep.fail(key, "needs at least one value");
        const toml::node* base = params.raw(key);
        if (base == nullptr) sweep.fail(key, fmt::format("\"{}\" is not a key of [params]", key));
        for (size_t i = 0; i < arr->size(); ++i) {
            const toml::node& v = *arr->get(i);
            if (!same_kind(*base, v)) {
                sweep.fail_at(v, fmt::format("{}[{}]", sweep.dotted(key), i),
                              fmt::format("expected {} like {}, got {}", config::type_name(*base), params.dotted(key),
                                          config::type_name(v)));
            }
        }
        sweep.mark_used(key);
        e.swept.push_back(key);
        e.sweep_sizes.push_back(arr->size());
    }
}

report::PublishedRow read_published_row(config::Table row, const config::Table& params) {
    report::PublishedRow out;
    config::Table p = row.table("params");
    for (const std::string& key : p.keys()) {
        if (!params.has(key)) p.fail(key, fmt::format("\"{}\" is not a key of [params]", key));
    }
    out.params = to_json(*row.raw("params"));
    config::Table m = row.table("metrics");
    for (const std::string& key : m.keys()) m.get<double>(key);
    out.metrics = to_json(*row.raw("metrics"));
    out.note = row.get_or<std::string>("note", "");
    out.file = m.file();
    out.line = m.line();
    out.key = m.path();
    row.finish();
    return out;
}

report::Published read_published(config::Table t, const config::Table& params) {
    report::Published out;
    out.source = t.get_or<std::string>("source", "");
    if (t.has("rows")) {
        for (config::Table row : t.table_array("rows")) out.rows.push_back(read_published_row(row, params));
    }
    t.finish();
    return out;
}

}  // namespace

size_t Experiment::points() const {
    size_t n = 1;
    for (size_t s : sweep_sizes) n *= s;
    return n;
}

Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
    Experiment e;
    e.file = path;
    e.text = config::Document::read_text(path);
    e.overrides = overrides;
    const config::Document doc = resolved_document(e);
    config::Table root = doc.root();
    read_experiment_table(root, e);
    const config::Table params = root.table("params");
    e.param_keys = params.keys();
    if (auto sweep = root.table_optional("sweep")) read_sweep(*sweep, params, e);
    if (auto published = root.table_optional("published")) e.published = read_published(*published, params);
    if (auto shape = root.table_optional("report")) e.shape = report::read_seed_shape(*shape, params);
    root.finish();
    return e;
}

std::vector<size_t> sweep_indices(const Experiment& experiment, size_t point) {
    // The last key varies fastest, so the first key is the outermost loop.
    std::vector<size_t> out(experiment.swept.size());
    for (size_t k = experiment.swept.size(); k-- > 0;) {
        out[k] = point % experiment.sweep_sizes[k];
        point /= experiment.sweep_sizes[k];
    }
    return out;
}

config::Document point_document(const Experiment& experiment, size_t point) {
    config::Document doc = resolved_document(experiment);
    toml::table& params = *doc.tree()["params"].as_table();
    toml::table* sweep = doc.tree()["sweep"].as_table();
    const std::vector<size_t> index = sweep_indices(experiment, point);
    for (size_t k = 0; k < experiment.swept.size(); ++k) {
        toml::node& value = *sweep->get_as<toml::array>(experiment.swept[k])->get(index[k]);
        value.visit([&](auto&& typed) { params.insert_or_assign(experiment.swept[k], std::move(typed)); });
    }
    return doc;
}

std::string resolved_toml(const Experiment& experiment) {
    return config::to_toml_text(resolved_document(experiment).tree());
}

}  // namespace ipisim::cli
