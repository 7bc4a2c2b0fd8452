#include "config/table.h"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "config/units.h"

namespace ipisim::config {

namespace {

const char* type_name(const toml::node& n) {
    switch (n.type()) {
        case toml::node_type::table: return "a table";
        case toml::node_type::array: return "an array";
        case toml::node_type::string: return "a string";
        case toml::node_type::integer: return "an integer";
        case toml::node_type::floating_point: return "a number";
        case toml::node_type::boolean: return "a boolean";
        case toml::node_type::date: return "a date";
        case toml::node_type::time: return "a time";
        case toml::node_type::date_time: return "a date-time";
        default: return "nothing";
    }
}

int line_of_node(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

}  // namespace

Table::Table(const toml::table* table, std::string file, std::string path)
    : table_(table), file_(std::move(file)), path_(std::move(path)) {}

bool Table::has(std::string_view key) const { return table_->contains(key); }

std::string Table::dotted(std::string_view key) const {
    if (path_.empty()) return std::string(key);
    return path_ + "." + std::string(key);
}

int Table::line() const { return line_of_node(*table_); }

int Table::line_of(std::string_view key) const {
    if (const toml::node* n = table_->get(key)) return line_of_node(*n);
    return line();
}

void Table::fail(std::string_view key, const std::string& problem) const {
    throw ConfigError(file_, line_of(key), dotted(key), problem);
}

const toml::node* Table::raw(std::string_view key) const { return table_->get(key); }

void Table::mark_used(std::string_view key) { used_.emplace(key); }

const toml::node* Table::node_or_fail(std::string_view key) {
    const toml::node* n = table_->get(key);
    if (n == nullptr) throw ConfigError(file_, line(), dotted(key), "required key is missing");
    used_.emplace(key);
    return n;
}

template <class T>
T Table::convert(std::string_view key, const toml::node& n) const {
    if constexpr (std::is_same_v<T, bool>) {
        if (auto v = n.value_exact<bool>()) return *v;
        fail(key, fmt::format("expected a boolean, got {}", type_name(n)));
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (auto v = n.value_exact<std::string>()) return *v;
        fail(key, fmt::format("expected a string, got {}", type_name(n)));
    } else if constexpr (std::is_same_v<T, double>) {
        if (auto v = n.value_exact<double>()) return *v;
        if (auto v = n.value_exact<int64_t>()) return static_cast<double>(*v);
        fail(key, fmt::format("expected a number, got {}", type_name(n)));
    } else {
        static_assert(std::is_integral_v<T>);
        auto v = n.value_exact<int64_t>();
        if (!v) fail(key, fmt::format("expected an integer, got {}", type_name(n)));
        if (*v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            (*v > 0 && static_cast<uint64_t>(*v) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
            fail(key, fmt::format("{} is out of range", *v));
        }
        return static_cast<T>(*v);
    }
}

template <class T>
T Table::get(std::string_view key) {
    return convert<T>(key, *node_or_fail(key));
}

template <class T>
T Table::get_or(std::string_view key, T fallback) {
    if (!has(key)) return fallback;
    return get<T>(key);
}

template <class T>
std::optional<T> Table::get_optional(std::string_view key) {
    if (!has(key)) return std::nullopt;
    return get<T>(key);
}

#define IPISIM_INSTANTIATE(T)                                              \
    template T Table::get<T>(std::string_view);                            \
    template T Table::get_or<T>(std::string_view, T);                      \
    template std::optional<T> Table::get_optional<T>(std::string_view);    \
    template std::vector<T> Table::array<T>(std::string_view);
IPISIM_INSTANTIATE(bool)
IPISIM_INSTANTIATE(std::string)
IPISIM_INSTANTIATE(double)
IPISIM_INSTANTIATE(int64_t)
IPISIM_INSTANTIATE(uint64_t)
IPISIM_INSTANTIATE(int)
IPISIM_INSTANTIATE(uint32_t)
#undef IPISIM_INSTANTIATE

sim::Picos Table::duration(std::string_view key) {
    const toml::node* n = node_or_fail(key);
    auto s = n->value_exact<std::string>();
    if (!s) {
        fail(key, fmt::format("a duration must be a string with a unit such as \"5 ns\", got {}",
                              type_name(*n)));
    }
    std::string why;
    auto d = parse_duration(*s, &why);
    if (!d) fail(key, why);
    return *d;
}

sim::Picos Table::duration_or(std::string_view key, sim::Picos fallback) {
    if (!has(key)) return fallback;
    return duration(key);
}

std::optional<sim::Picos> Table::duration_optional(std::string_view key) {
    if (!has(key)) return std::nullopt;
    return duration(key);
}

sim::ClockDomain Table::frequency(std::string_view key) {
    const toml::node* n = node_or_fail(key);
    auto s = n->value_exact<std::string>();
    if (!s) {
        fail(key, fmt::format("a frequency must be a string with a unit such as \"2.1 GHz\", got {}",
                              type_name(*n)));
    }
    std::string why;
    auto f = parse_frequency(*s, &why);
    if (!f) fail(key, why);
    return *f;
}

template <class T>
std::vector<T> Table::array(std::string_view key) {
    const toml::node* n = node_or_fail(key);
    const toml::array* arr = n->as_array();
    if (arr == nullptr) fail(key, fmt::format("expected an array, got {}", type_name(*n)));
    std::vector<T> out;
    out.reserve(arr->size());
    for (size_t i = 0; i < arr->size(); ++i) {
        const toml::node& e = *arr->get(i);
        try {
            out.push_back(convert<T>(key, e));
        } catch (const ConfigError& err) {
            throw ConfigError(file_, line_of_node(e), fmt::format("{}[{}]", dotted(key), i), err.problem());
        }
    }
    return out;
}

std::vector<sim::Picos> Table::duration_array(std::string_view key) {
    std::vector<std::string> texts = array<std::string>(key);
    const toml::array* arr = table_->get(key)->as_array();
    std::vector<sim::Picos> out;
    for (size_t i = 0; i < texts.size(); ++i) {
        std::string why;
        auto d = parse_duration(texts[i], &why);
        if (!d) throw ConfigError(file_, line_of_node(*arr->get(i)), fmt::format("{}[{}]", dotted(key), i), why);
        out.push_back(*d);
    }
    return out;
}

Table Table::table(std::string_view key) {
    const toml::node* n = node_or_fail(key);
    const toml::table* t = n->as_table();
    if (t == nullptr) fail(key, fmt::format("expected a table, got {}", type_name(*n)));
    return Table(t, file_, dotted(key));
}

std::optional<Table> Table::table_optional(std::string_view key) {
    if (!has(key)) return std::nullopt;
    return table(key);
}

std::vector<Table> Table::table_array(std::string_view key) {
    const toml::node* n = node_or_fail(key);
    const toml::array* arr = n->as_array();
    if (arr == nullptr) fail(key, fmt::format("expected an array of tables, got {}", type_name(*n)));
    std::vector<Table> out;
    for (size_t i = 0; i < arr->size(); ++i) {
        const toml::table* t = arr->get(i)->as_table();
        if (t == nullptr) {
            throw ConfigError(file_, line_of_node(*arr->get(i)), fmt::format("{}[{}]", dotted(key), i),
                              "expected a table");
        }
        out.emplace_back(t, file_, fmt::format("{}[{}]", dotted(key), i));
    }
    return out;
}

std::vector<std::string> Table::keys() const {
    std::vector<std::pair<int, std::string>> ordered;
    for (auto&& [k, v] : *table_) ordered.emplace_back(line_of_node(v), std::string(k.str()));
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto& [line, k] : ordered) out.push_back(std::move(k));
    return out;
}

void Table::finish() const {
    // Report the first unknown key in file order, so the message is deterministic.
    const toml::node* first = nullptr;
    std::string first_key;
    for (auto&& [k, v] : *table_) {
        if (used_.count(k.str()) != 0) continue;
        if (first == nullptr || line_of_node(v) < line_of_node(*first)) {
            first = &v;
            first_key = std::string(k.str());
        }
    }
    if (first != nullptr) {
        throw ConfigError(file_, line_of_node(*first), dotted(first_key), "unknown key");
    }
}

Document Document::load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(path, 0, "(file)", "cannot open file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse(ss.str(), path);
}

Document Document::parse(std::string_view text, const std::string& name) {
    Document d;
    d.name_ = name;
    try {
        d.tree_ = std::make_shared<toml::table>(toml::parse(text, name));
    } catch (const toml::parse_error& e) {
        throw ConfigError(name, static_cast<int>(e.source().begin.line), "(syntax)",
                          std::string(e.description()));
    }
    return d;
}

Table Document::root() const { return Table(tree_.get(), name_, ""); }

void Document::apply_override(const std::string& assignment) {
    auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
        throw ConfigError("--set", 0, assignment, "expected key=value");
    }
    std::string key = assignment.substr(0, eq);
    std::string value = assignment.substr(eq + 1);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    while (!value.empty() && value.front() == ' ') value.erase(value.begin());

    // Parse the value as TOML; a bare word that does not parse becomes a string.
    toml::table parsed;
    try {
        parsed = toml::parse("v = " + value, "--set");
    } catch (const toml::parse_error&) {
        try {
            parsed = toml::parse("v = \"" + value + "\"", "--set");
        } catch (const toml::parse_error& e) {
            throw ConfigError("--set", 0, key, std::string(e.description()));
        }
    }

    // Walk the dotted path, creating intermediate tables only where the key is new.
    toml::table* t = tree_.get();
    size_t start = 0;
    while (true) {
        size_t dot = key.find('.', start);
        std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (part.empty()) throw ConfigError("--set", 0, key, "empty key component");
        if (dot == std::string::npos) {
            toml::node* existing = t->get(part);
            toml::node* v = parsed.get("v");
            if (existing != nullptr && existing->type() != v->type() &&
                !(existing->is_floating_point() && v->is_integer())) {
                throw ConfigError("--set", 0, key,
                                  fmt::format("replaces {} with {}", type_name(*existing), type_name(*v)));
            }
            t->insert_or_assign(part, std::move(*v));
            return;
        }
        toml::node* next = t->get(part);
        if (next == nullptr) {
            t->insert(part, toml::table{});
            next = t->get(part);
        }
        if (!next->is_table()) throw ConfigError("--set", 0, key, fmt::format("{} is not a table", part));
        t = next->as_table();
        start = dot + 1;
    }
}

}  // namespace ipisim::config
