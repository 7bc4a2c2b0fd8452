#include "config/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "config/file_problem.h"
#include "config/suggest.h"
#include "config/units.h"

namespace ipisim::config {

const char* type_name(const toml::node& n) {
    switch (n.type()) {
        case toml::node_type::table:
            return "a table";
        case toml::node_type::array:
            return "an array";
        case toml::node_type::string:
            return "a string";
        case toml::node_type::integer:
            return "an integer";
        case toml::node_type::floating_point:
            return "a number";
        case toml::node_type::boolean:
            return "a boolean";
        case toml::node_type::date:
            return "a date";
        case toml::node_type::time:
            return "a time";
        case toml::node_type::date_time:
            return "a date-time";
        default:
            return "nothing";
    }
}

namespace {

// Where a value came from: its own source (a value set by --set carries kOverrideSource), or
// the table's file when the node was built in memory.
struct Location {
    std::string file;
    int line;
};

Location locate(const toml::node& n, const std::string& fallback_file) {
    const auto& src = n.source();
    if (src.path == nullptr) return {fallback_file, 0};
    if (*src.path == kOverrideSource) return {*src.path, 0};
    return {*src.path, static_cast<int>(src.begin.line)};
}

// Sort key for file order (line, then column: keys of one inline table keep their order);
// values from --set come after every value of the file.
int64_t order_of(const toml::node& n) {
    const auto& src = n.source();
    if (src.path == nullptr || *src.path == kOverrideSource) return std::numeric_limits<int64_t>::max();
    return (static_cast<int64_t>(src.begin.line) << 32) | static_cast<int64_t>(src.begin.column);
}

}  // namespace

Table::Table(const toml::table* table, std::string file, std::string path)
    : table_(table), file_(std::move(file)), path_(std::move(path)) {}

Table::Table(const toml::table* table, std::string file, std::string path, std::vector<Substitute> substitutes)
    : table_(table), file_(std::move(file)), path_(std::move(path)), substitutes_(std::move(substitutes)) {}

const Substitute* Table::substitute(std::string_view key) const {
    for (const Substitute& s : substitutes_) {
        if (s.key == key) return &s;
    }
    return nullptr;
}

const toml::node* Table::find(std::string_view key) const {
    if (const Substitute* s = substitute(key)) return s->node;
    return table_->get(key);
}

void Table::ask(std::string_view key) const {
    if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) asked_.emplace_back(key);
}

bool Table::has(std::string_view key) const {
    ask(key);
    return find(key) != nullptr;
}

std::string Table::dotted(std::string_view key) const {
    if (const Substitute* s = substitute(key)) return s->name;
    if (path_.empty()) return std::string(key);
    return path_ + "." + std::string(key);
}

int Table::line() const {
    return locate(*table_, file_).line;
}

int Table::line_of(std::string_view key) const {
    if (const toml::node* n = find(key)) return locate(*n, file_).line;
    return line();
}

std::string Table::file_of(std::string_view key) const {
    if (const toml::node* n = find(key)) return locate(*n, file_).file;
    return locate(*table_, file_).file;
}

void Table::fail(std::string_view key, const std::string& problem) const {
    const toml::node* n = find(key);
    // A marked cost ({ value = ..., mark = ... }) is located at its value: the one --set
    // replaces, so that a check across keys names "--set" for a value given there.
    if (n != nullptr && n->is_table()) {
        if (const toml::node* v = n->as_table()->get("value")) n = v;
    }
    Location at = locate(n != nullptr ? *n : *table_, file_);
    throw ConfigError(at.file, at.line, dotted(key), problem);
}

void Table::fail_at(const toml::node& n, const std::string& key, const std::string& problem) const {
    Location at = locate(n, file_);
    throw ConfigError(at.file, at.line, key, problem);
}

const toml::node* Table::raw(std::string_view key) const {
    ask(key);
    return find(key);
}

void Table::mark_used(std::string_view key) {
    used_.emplace(key);
}

const toml::node* Table::node_or_fail(std::string_view key) {
    ask(key);
    const toml::node* n = find(key);
    if (n == nullptr) fail(key, "required key is missing");
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
        if (auto v = n.value_exact<double>()) {
            // No configuration number is meant to be NaN or infinite (range checks let NaN through).
            if (!std::isfinite(*v)) fail(key, fmt::format("must be a finite number, got {}", *v));
            return *v;
        }
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

#define IPISIM_INSTANTIATE(T)                                           \
    template T Table::get<T>(std::string_view);                         \
    template T Table::get_or<T>(std::string_view, T);                   \
    template std::optional<T> Table::get_optional<T>(std::string_view); \
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
        fail(key, fmt::format("a duration must be a string with a unit such as \"5 ns\", got {}", type_name(*n)));
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
        fail(key, fmt::format("a frequency must be a string with a unit such as \"2.1 GHz\", got {}", type_name(*n)));
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
            fail_at(e, fmt::format("{}[{}]", dotted(key), i), err.problem());
        }
    }
    return out;
}

std::vector<sim::Picos> Table::duration_array(std::string_view key) {
    std::vector<std::string> texts = array<std::string>(key);
    const toml::array* arr = find(key)->as_array();
    std::vector<sim::Picos> out;
    for (size_t i = 0; i < texts.size(); ++i) {
        std::string why;
        auto d = parse_duration(texts[i], &why);
        if (!d) fail_at(*arr->get(i), fmt::format("{}[{}]", dotted(key), i), why);
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
            fail_at(*arr->get(i), fmt::format("{}[{}]", dotted(key), i),
                    fmt::format("expected a table, got {}", type_name(*arr->get(i))));
        }
        out.emplace_back(t, file_, fmt::format("{}[{}]", dotted(key), i));
    }
    return out;
}

std::vector<std::string> Table::keys() const {
    std::vector<std::pair<int64_t, std::string>> ordered;
    for (auto&& [k, v] : *table_) ordered.emplace_back(order_of(v), std::string(k.str()));
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto& [order, k] : ordered) out.push_back(std::move(k));
    for (const Substitute& s : substitutes_) {
        if (!table_->contains(s.key)) out.push_back(s.key);
    }
    return out;
}

void Table::finish() const {
    // Report the first unknown key in file order, so the message is deterministic.
    const toml::node* first = nullptr;
    std::string first_key;
    auto consider = [&](std::string_view key, const toml::node& v) {
        if (used_.count(key) != 0) return;
        if (first == nullptr || order_of(v) < order_of(*first)) {
            first = &v;
            first_key = std::string(key);
        }
    };
    for (auto&& [k, v] : *table_) consider(k.str(), *find(k.str()));
    for (const Substitute& s : substitutes_) {
        if (!table_->contains(s.key)) consider(s.key, *s.node);
    }
    if (first == nullptr) return;
    std::vector<std::string> known;
    for (const std::string& k : asked_) {
        if (k != first_key) known.push_back(k);
    }
    fail_at(*first, dotted(first_key), "unknown key" + did_you_mean(first_key, known));
}

std::string Document::read_text(const std::string& path) {
    if (const std::string problem = file_problem(path); !problem.empty()) {
        throw ConfigError(path, 0, "(file)", problem);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(path, 0, "(file)", "cannot open file");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Document Document::load(const std::string& path) {
    return parse(read_text(path), path);
}

// toml++ 3.3 (Debian 12) reaches TOML_UNREACHABLE -- undefined behaviour, caught by UBSan on a
// fuzzed input -- in is_non_ascii_horizontal_whitespace() for most non-ASCII code points met
// where whitespace may stand (its range table misses them). TOML allows non-ASCII text only in
// strings and comments, so a non-ASCII byte anywhere else is refused here, with its line, before
// toml++ sees the text; so is one right after a multi-line string's line-ending backslash, where
// the parser trims whitespace.
namespace {
void refuse_toml_unsafe_text(std::string_view text, const std::string& name, const std::string& key, int line0) {
    enum class In { code, comment, basic, literal, ml_basic, ml_literal };
    In in = In::code;
    bool trimming = false;  // after a line-ending backslash in a multi-line basic string
    int line = line0;
    auto at = [&](size_t i, const char* s) { return text.substr(i, std::strlen(s)) == s; };
    auto fail = [&](unsigned char c) {
        throw ConfigError(name, line, key,
                          fmt::format("byte 0x{:02X}: non-ASCII text is allowed only in strings and comments", c));
    };
    // A leading byte-order mark (U+FEFF) is allowed: toml++ skips it.
    for (size_t i = at(0, "\xEF\xBB\xBF") ? 3 : 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') ++line;
        const bool ascii = c < 0x80;
        if (trimming) {
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
            trimming = false;
            if (!ascii) fail(c);
        }
        switch (in) {
            case In::code:
                if (!ascii) break;
                if (c == '#') in = In::comment;
                if (c == '"') in = at(i, "\"\"\"") ? (i += 2, In::ml_basic) : In::basic;
                if (c == '\'') in = at(i, "\'\'\'") ? (i += 2, In::ml_literal) : In::literal;
                continue;
            case In::comment:
                if (c == '\n') in = In::code;
                continue;
            case In::basic:
                if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
                if (c == '"' || c == '\n') in = In::code;
                continue;
            case In::literal:
                if (c == '\'' || c == '\n') in = In::code;
                continue;
            case In::ml_basic:
                if (c == '\\' && i + 1 < text.size()) {
                    const char n = text[i + 1];
                    if (n == ' ' || n == '\t' || n == '\r' || n == '\n') {
                        trimming = true;
                    } else {
                        ++i;
                    }
                }
                if (at(i, "\"\"\"")) in = (i += 2, In::code);
                continue;
            case In::ml_literal:
                if (at(i, "\'\'\'")) in = (i += 2, In::code);
                continue;
        }
        fail(c);
    }
}
}  // namespace

Document Document::parse(std::string_view text, const std::string& name) {
    Document d;
    d.name_ = name;
    refuse_toml_unsafe_text(text, name, "(syntax)", 1);
    try {
        d.tree_ = std::make_shared<toml::table>(toml::parse(text, name));
    } catch (const toml::parse_error& e) {
        throw ConfigError(name, static_cast<int>(e.source().begin.line), "(syntax)", std::string(e.description()));
    }
    return d;
}

Document Document::adopt(toml::table tree, const std::string& name) {
    Document d;
    d.name_ = name;
    d.tree_ = std::make_shared<toml::table>(std::move(tree));
    return d;
}

Table Document::root() const {
    return Table(tree_.get(), name_, "");
}

namespace {

// A value that only a TOML value can be (an array, table, quoted string or bare integer): a
// failed parse of it is reported as it is, not retried as a string ("got a string" would mislead).
bool looks_like_toml(const std::string& value) {
    if (value.empty()) return false;
    if (value.front() == '[' || value.front() == '{' || value.front() == '"' || value.front() == '\'') return true;
    const size_t digits = value.front() == '+' || value.front() == '-' ? 1 : 0;
    return value.size() > digits && std::all_of(value.begin() + static_cast<std::ptrdiff_t>(digits), value.end(),
                                                [](char c) { return (c >= '0' && c <= '9') || c == '_'; });
}

// Parses an override's value as TOML; a bare word that does not parse becomes a string. The
// value's source is kOverrideSource, so later errors about it name "--set", not a file line.
// The value is one TOML value on one line: a newline would let it add other keys.
toml::table parse_override_value(const std::string& key, const std::string& value) {
    const std::string source(kOverrideSource);
    if (value.find_first_of("\r\n") != std::string::npos) {
        throw ConfigError(source, 0, key, "the value must be on one line");
    }
    refuse_toml_unsafe_text(value, source, key, 0);
    try {
        toml::table parsed = toml::parse("v = " + value, source);
        if (parsed.size() == 1) return parsed;
    } catch (const toml::parse_error& e) {
        if (looks_like_toml(value)) throw ConfigError(source, 0, key, std::string(e.description()));
    }
    try {
        return toml::parse("v = \"" + value + "\"", source);
    } catch (const toml::parse_error& e) {
        throw ConfigError(source, 0, key, std::string(e.description()));
    }
}

// A key component `name[i]`: element i of the array of tables `name` (`idle[3]`, the way
// `ipisim machine show`, `sensitivity` and `--uncertainty` name a cost of the fourth [[idle]]).
// Returns false for a plain component; throws for a malformed index.
bool indexed_component(const std::string& part, const std::string& key, std::string& name, size_t& index) {
    const size_t open = part.find('[');
    if (open == std::string::npos) return false;
    const std::string source(kOverrideSource);
    const std::string digits = part.substr(open + 1, part.size() - open - 2);
    if (open == 0 || part.back() != ']' || digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
        throw ConfigError(source, 0, key, fmt::format("{}: expected name[index] with a whole-number index", part));
    }
    name = part.substr(0, open);
    index = std::stoul(digits);
    return true;
}

// The table at element `index` of the array of tables `name` in `t`, or a located error.
toml::table* array_element(toml::table& t, const std::string& name, size_t index, const std::string& key) {
    const std::string source(kOverrideSource);
    toml::node* node = t.get(name);
    if (node == nullptr) throw ConfigError(source, 0, key, fmt::format("{}: no such array", name));
    toml::array* arr = node->as_array();
    if (arr == nullptr) throw ConfigError(source, 0, key, fmt::format("{} is not an array", name));
    if (index >= arr->size()) {
        throw ConfigError(source, 0, key,
                          arr->empty() ? fmt::format("{}[{}]: {} is empty", name, index, name)
                                       : fmt::format("{}[{}]: {} has {} element{} (0..{})", name, index, name,
                                                     arr->size(), arr->size() == 1 ? "" : "s", arr->size() - 1));
    }
    toml::table* element = arr->get(index)->as_table();
    if (element == nullptr) throw ConfigError(source, 0, key, fmt::format("{}[{}] is not a table", name, index));
    return element;
}

}  // namespace

void Document::apply_override(const std::string& assignment) {
    const std::string source(kOverrideSource);
    auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
        throw ConfigError(source, 0, assignment, "expected key=value");
    }
    std::string key = assignment.substr(0, eq);
    std::string value = assignment.substr(eq + 1);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    while (!value.empty() && value.front() == ' ') value.erase(value.begin());
    toml::table parsed = parse_override_value(key, value);

    // Walk the dotted path, creating intermediate tables only where the key is new.
    toml::table* t = tree_.get();
    size_t start = 0;
    while (true) {
        size_t dot = key.find('.', start);
        std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (part.empty()) throw ConfigError(source, 0, key, "empty key component");
        std::string array_name;
        size_t index = 0;
        if (indexed_component(part, key, array_name, index)) {
            if (dot == std::string::npos) {
                throw ConfigError(source, 0, key,
                                  fmt::format("{}: an element is set one key at a time ({}.KEY=VALUE)", part, key));
            }
            t = array_element(*t, array_name, index, key);
            start = dot + 1;
            continue;
        }
        if (dot == std::string::npos) {
            toml::node* existing = t->get(part);
            toml::node* v = parsed.get("v");
            // A marked cost ({ value = ..., mark = ... }) given a plain value: the value is replaced.
            if (existing != nullptr && existing->is_table() && !v->is_table() &&
                existing->as_table()->contains("value")) {
                t = existing->as_table();
                part = "value";
                existing = t->get(part);
            }
            if (existing != nullptr && existing->type() != v->type() &&
                !(existing->is_floating_point() && v->is_integer())) {
                throw ConfigError(
                    source, 0, key,
                    fmt::format("expected {} like the value it replaces, got {}", type_name(*existing), type_name(*v)));
            }
            v->visit([&](auto& typed) { t->insert_or_assign(part, std::move(typed)); });  // v is ours to move from
            return;
        }
        toml::node* next = t->get(part);
        if (next == nullptr) {
            toml::table created = toml::parse("v = {}", source);
            t->insert(part, std::move(*created.get_as<toml::table>("v")));
            next = t->get(part);
        }
        if (!next->is_table()) throw ConfigError(source, 0, key, fmt::format("{} is not a table", part));
        t = next->as_table();
        start = dot + 1;
    }
}

}  // namespace ipisim::config
