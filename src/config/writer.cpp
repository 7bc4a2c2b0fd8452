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
std::string quoted(const std::string& s) {
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
    return bare ? key : quoted(key);
}

namespace {

bool is_table_array(const toml::node& n) {
    const toml::array* a = n.as_array();
    return a != nullptr && !a->empty() && a->is_array_of_tables();
}

std::string inline_table_text(const toml::table& t) {
    std::string out;
    for (const std::string& key : ordered_keys(t)) {
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
    if (auto str = n.value_exact<std::string>()) return quoted(*str);
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

void write_section(std::string& out, const toml::table& t, const std::string& header) {
    out += header + "\n";
    for (const std::string& key : ordered_keys(t)) {
        out += fmt::format("{} = {}\n", key_text(key), value_text(*t.get(key)));
    }
}

}  // namespace

std::string section_text(const std::string& header, const toml::table& t, const std::vector<std::string>& order) {
    // Arrays of tables inside a section get their own [[section.key]] blocks after it.
    std::vector<std::string> arrays;
    std::string out = fmt::format("[{}]\n", header);
    for (const std::string& sub : ordered_keys(t, order)) {
        const toml::node& v = *t.get(sub);
        if (is_table_array(v)) {
            arrays.push_back(sub);
        } else {
            out += fmt::format("{} = {}\n", key_text(sub), value_text(v));
        }
    }
    for (const std::string& sub : arrays) {
        for (const toml::node& e : *t.get(sub)->as_array()) {
            out += "\n";
            write_section(out, *e.as_table(), fmt::format("[[{}.{}]]", header, key_text(sub)));
        }
    }
    return out;
}

std::string to_toml_text(const toml::table& root, const std::string& prefix) {
    std::string out;
    std::vector<std::string> sections;
    for (const std::string& key : ordered_keys(root)) {
        const toml::node& n = *root.get(key);
        if (n.is_table() || is_table_array(n)) {
            sections.push_back(key);
        } else {
            out += fmt::format("{} = {}\n", key_text(key), value_text(n));
        }
    }
    if (!prefix.empty()) out = fmt::format("[{}]\n", prefix) + out;
    const std::string dot = prefix.empty() ? "" : prefix + ".";
    for (const std::string& key : sections) {
        const toml::node& n = *root.get(key);
        if (!out.empty()) out += "\n";
        if (const toml::table* t = n.as_table()) {
            out += section_text(dot + key_text(key), *t);
        } else {
            for (const toml::node& e : *n.as_array()) {
                write_section(out, *e.as_table(), fmt::format("[[{}{}]]", dot, key_text(key)));
            }
        }
    }
    return out;
}

}  // namespace ipisim::config
