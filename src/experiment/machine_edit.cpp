#include "experiment/machine_edit.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "config/typed_value.h"

namespace ipisim::experiment {

namespace {

// "idle[1]" -> {"idle", 1}; "same_l3" -> {"same_l3", -1}.
std::pair<std::string, long> split_index(const std::string& part) {
    const size_t open = part.find('[');
    if (open == std::string::npos || part.back() != ']') return {part, -1};
    return {part.substr(0, open), std::stol(part.substr(open + 1, part.size() - open - 2))};
}

[[noreturn]] void missing(const std::string& key, const std::string& doc) {
    throw std::logic_error(fmt::format("machine {} holds no cost {}", doc, key));
}

// The node holding the cost's value: the key itself, or its marked table's "value".
toml::table& parent_of(toml::table& root, const std::string& key, const std::string& doc, std::string& leaf) {
    toml::table* t = &root;
    size_t start = 0;
    while (true) {
        const size_t dot = key.find('.', start);
        const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (dot == std::string::npos) {
            toml::node* n = t->get(part);
            if (n == nullptr) missing(key, doc);
            if (toml::table* marked = n->as_table()) {
                if (!marked->contains("value")) missing(key, doc);
                leaf = "value";
                return *marked;
            }
            leaf = part;
            return *t;
        }
        const auto [name, index] = split_index(part);
        toml::node* n = t->get(name);
        if (n != nullptr && index >= 0 && n->is_array()) n = n->as_array()->get(static_cast<size_t>(index));
        if (n == nullptr || !n->is_table()) missing(key, doc);
        t = n->as_table();
        start = dot + 1;
    }
}

// The marked table's `fit` key: the interval, or none (an earlier one removed: it does not
// describe this fit).
void set_fit(toml::table& marked, const config::CostValue& cost, const std::optional<config::Range>& fit);

}  // namespace

double representable(config::ParamType type, double value) {
    switch (type) {
        case config::ParamType::duration:
        case config::ParamType::frequency:
        case config::ParamType::integer:
            return std::round(value);
        default:
            return value;
    }
}

config::Document with_costs(const config::Document& machine, const std::vector<CostSetting>& settings) {
    toml::table tree = machine.tree();  // a deep copy: nodes keep their source lines
    for (const CostSetting& s : settings) {
        std::string leaf;
        toml::table& parent = parent_of(tree, s.cost->key, machine.name(), leaf);
        config::with_typed_value(s.cost->type, representable(s.cost->type, s.value),
                                 [&](auto&& node) { parent.insert_or_assign(leaf, node); });
    }
    return config::Document::adopt(std::move(tree), machine.name());
}

config::Document with_fitted(const config::Document& machine, const std::vector<CostSetting>& settings,
                             const std::string& target, const std::vector<std::string>& sources,
                             const std::vector<std::optional<config::Range>>& fits) {
    config::Document edited = with_costs(machine, settings);
    for (size_t i = 0; i < settings.size(); ++i) {
        std::string leaf;
        toml::table& parent = parent_of(edited.tree(), settings[i].cost->key, machine.name(), leaf);
        if (leaf != "value") {
            throw std::logic_error(fmt::format("cost {} of {} is not marked", settings[i].cost->key, machine.name()));
        }
        parent.insert_or_assign("mark", "F");
        parent.insert_or_assign("source", sources.at(i));
        parent.insert_or_assign("target", target);
        set_fit(parent, *settings[i].cost, i < fits.size() ? fits[i] : std::nullopt);
    }
    return edited;
}

config::Document with_fit_intervals(const config::Document& machine, const std::vector<const config::CostValue*>& costs,
                                    const std::vector<std::optional<config::Range>>& fits) {
    toml::table tree = machine.tree();
    for (size_t i = 0; i < costs.size(); ++i) {
        std::string leaf;
        toml::table& parent = parent_of(tree, costs[i]->key, machine.name(), leaf);
        if (leaf != "value" || costs[i]->provenance.mark != config::Mark::F) {
            throw std::logic_error(fmt::format("cost {} of {} is not marked F", costs[i]->key, machine.name()));
        }
        set_fit(parent, *costs[i], i < fits.size() ? fits[i] : std::nullopt);
    }
    return config::Document::adopt(std::move(tree), machine.name());
}

namespace {

void set_fit(toml::table& marked, const config::CostValue& cost, const std::optional<config::Range>& fit) {
    marked.erase("fit");
    if (fit) {
        marked.insert_or_assign("fit", config::typed_range(cost.type, representable(cost.type, fit->lo),
                                                           representable(cost.type, fit->hi)));
    }
}

}  // namespace

}  // namespace ipisim::experiment
