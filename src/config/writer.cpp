#include "config/writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "config/table.h"

namespace ipisim::config {

namespace {

std::vector<std::string> ordered_keys(const toml::table& t, const std::vector<std::string>& first = {}) {
    std::vector<std::string> out;
    for (const std::string& k : first) {
        if (t.contains(k) && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
    for (std::string& k : Table(&t, "", "").keys()) {
        if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(std::move(k));
    }
    return out;
}

// A TOML basic string: double quotes, with escapes for quotes, backslashes and control chars.
std::string toml_quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

}  // namespace

std::string key_text(const std::string& key) {
    bool bare = !key.empty();
    for (char c : key) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        bare = bare && ok;
    }
    return bare ? key : toml_quoted(key);
}

namespace {

bool is_table_array(const toml::node& n) {
    const toml::array* a = n.as_array();
    return a != nullptr && !a->empty() && a->is_array_of_tables();
}

std::string inline_table_text(const toml::table& t) {
    std::string out;
    std::vector<std::string> keys = ordered_keys(t);
    // A marked value built in memory ({ value, mark, range, source }) reads value first.
    auto value = std::find(keys.begin(), keys.end(), "value");
    if (value != keys.end() && t.get("value")->source().path == nullptr) std::rotate(keys.begin(), value, value + 1);
    for (const std::string& key : keys) {
        out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", key_text(key), value_text(*t.get(key)));
    }
    return out.empty() ? std::string("{}") : fmt::format("{{ {} }}", out);
}

}  // namespace

std::string value_text(const toml::node& n) {
    if (const toml::table* t = n.as_table()) return inline_table_text(*t);
    if (const toml::array* a = n.as_array()) {
        std::string out;
        for (const toml::node& e : *a) out += fmt::format("{}{}", out.empty() ? "" : ", ", value_text(e));
        return fmt::format("[{}]", out);
    }
    if (auto str = n.value_exact<std::string>()) return toml_quoted(*str);
    if (auto d = n.value_exact<double>()) {
        // Shortest text that reads back to the same double, always recognisably a float.
        std::string s = fmt::format("{}", *d);
        if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
        return s;
    }
    std::ostringstream os;
    n.visit([&os](const auto& v) { os << v; });
    return os.str();
}

namespace {

bool is_section(const toml::node& n) {
    return n.is_table() && !n.as_table()->is_inline();
}

std::string dotted(const std::string& path, const std::string& key) {
    return path.empty() ? key_text(key) : path + "." + key_text(key);
}

// The body of a table whose header is written: its values (the keys of `order` first), then its
// sub-tables as [path.key] and its arrays of tables as [[path.key]] blocks, in key order.
void write_body(std::string& out, const toml::table& t, const std::string& path,
                const std::vector<std::string>& order = {}) {
    std::vector<std::string> nested;
    for (const std::string& key : ordered_keys(t, order)) {
        const toml::node& v = *t.get(key);
        if (is_section(v) || is_table_array(v)) {
            nested.push_back(key);
        } else {
            out += fmt::format("{} = {}\n", key_text(key), value_text(v));
        }
    }
    for (const std::string& key : nested) {
        const toml::node& v = *t.get(key);
        if (const toml::table* sub = v.as_table()) {
            out += fmt::format("\n[{}]\n", dotted(path, key));
            write_body(out, *sub, dotted(path, key));
            continue;
        }
        for (const toml::node& e : *v.as_array()) {
            out += fmt::format("\n[[{}]]\n", dotted(path, key));
            write_body(out, *e.as_table(), dotted(path, key));
        }
    }
}

}  // namespace

std::string section_text(const std::string& header, const toml::table& t, const std::vector<std::string>& order) {
    std::string out = fmt::format("[{}]\n", header);
    write_body(out, t, header, order);
    return out;
}

std::string to_toml_text(const toml::table& root, const std::string& prefix) {
    std::string out;
    std::vector<std::string> sections;
    for (const std::string& key : ordered_keys(root)) {
        const toml::node& n = *root.get(key);
        if (is_section(n) || is_table_array(n)) {
            sections.push_back(key);
        } else {
            out += fmt::format("{} = {}\n", key_text(key), value_text(n));
        }
    }
    if (!prefix.empty()) out = fmt::format("[{}]\n", prefix) + out;
    for (const std::string& key : sections) {
        const toml::node& n = *root.get(key);
        const std::string path = prefix.empty() ? key_text(key) : prefix + "." + key_text(key);
        if (!out.empty()) out += "\n";
        if (const toml::table* t = n.as_table()) {
            out += section_text(path, *t);
        } else {
            // Consecutive [[key]] blocks of a top-level array, like [[idle]] in machine files.
            for (const toml::node& e : *n.as_array()) {
                out += fmt::format("[[{}]]\n", path);
                write_body(out, *e.as_table(), path);
            }
        }
    }
    return out;
}

}  // namespace ipisim::config
