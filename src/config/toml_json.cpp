#include "config/toml_json.h"

#include <sstream>

#include "config/table.h"

namespace ipisim::config {

nlohmann::ordered_json to_json(const toml::node& node) {
    if (const toml::table* t = node.as_table()) {
        nlohmann::ordered_json out = nlohmann::ordered_json::object();
        const config::Table view(t, "", "");
        for (const std::string& key : view.keys()) out[key] = to_json(*t->get(key));
        return out;
    }
    if (const toml::array* a = node.as_array()) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const toml::node& e : *a) out.push_back(to_json(e));
        return out;
    }
    if (auto v = node.value_exact<int64_t>()) return *v;
    if (auto v = node.value_exact<double>()) return *v;
    if (auto v = node.value_exact<bool>()) return *v;
    if (auto v = node.value_exact<std::string>()) return *v;
    // Dates and times: their TOML text.
    std::ostringstream text;
    node.visit([&text](const auto& value) { text << value; });
    return text.str();
}

}  // namespace ipisim::config
