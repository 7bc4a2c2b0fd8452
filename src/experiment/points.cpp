// The sweep points of an experiment: indices, the views of each point's [params] and [kernel],
// and the parameters its row names (experiment.h).
#include <fmt/format.h>

#include <algorithm>

#include "config/names.h"
#include "config/toml_json.h"
#include "experiment/experiment.h"

namespace ipisim::experiment {

namespace {

using config::contains;

const toml::table& empty_table() {
    static const toml::table t;
    return t;
}

PointTables tables_with(const Experiment& e, const std::vector<config::Substitute>& params,
                        const std::vector<config::Substitute>& kernel) {
    const toml::table& tree = e.document.tree();
    const toml::table* k = tree.get_as<toml::table>("kernel");
    return PointTables{config::Table(tree.get_as<toml::table>("params"), e.document.name(), "params", params),
                       config::Table(k != nullptr ? k : &empty_table(), e.document.name(), "kernel", kernel)};
}

}  // namespace

size_t Experiment::points() const {
    size_t n = 1;
    for (const SweepKey& s : sweep) n *= s.values->size();
    return n;
}

std::vector<size_t> Experiment::sweep_indices(size_t point) const {
    // The last key varies fastest, so the first key is the outermost loop.
    std::vector<size_t> out(sweep.size());
    for (size_t k = sweep.size(); k-- > 0;) {
        out[k] = point % sweep[k].values->size();
        point /= sweep[k].values->size();
    }
    return out;
}

std::vector<std::string> Experiment::row_params() const {
    std::vector<std::string> out = param_keys;
    for (const SweepKey& s : sweep) {
        if (!s.kernel && !contains(out, s.name)) out.push_back(s.name);
    }
    for (const std::string& k : kernel_keys) out.push_back("kernel." + k);
    for (const SweepKey& s : sweep) {
        if (s.kernel && !contains(out, s.name)) out.push_back(s.name);
    }
    return out;
}

PointTables point_tables(const Experiment& e, size_t point) {
    const std::vector<size_t> index = e.sweep_indices(point);
    std::vector<config::Substitute> params;
    std::vector<config::Substitute> kernel;
    for (size_t k = 0; k < e.sweep.size(); ++k) {
        const SweepKey& s = e.sweep[k];
        (s.kernel ? kernel : params)
            .push_back(config::Substitute{s.key, s.values->get(index[k]), fmt::format("{}[{}]", s.path, index[k])});
    }
    return tables_with(e, params, kernel);
}

PointTables base_tables(const Experiment& e) {
    const PointTables file = tables_with(e, {}, {});
    std::vector<config::Substitute> params;
    std::vector<config::Substitute> kernel;
    for (const SweepKey& s : e.sweep) {
        if ((s.kernel ? file.kernel : file.params).has(s.key)) continue;
        (s.kernel ? kernel : params).push_back(config::Substitute{s.key, s.values->get(0), s.path + "[0]"});
    }
    return tables_with(e, params, kernel);
}

nlohmann::ordered_json row_params(const Experiment& e, const PointTables& point) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const std::string& name : e.row_params()) {
        const bool kernel = name.rfind("kernel.", 0) == 0;
        const toml::node* v = kernel ? point.kernel.raw(name.substr(7)) : point.params.raw(name);
        out[name] = config::to_json(*v);
    }
    return out;
}

}  // namespace ipisim::experiment
