// Strict reading of one TOML table: every key must be read, every value must have the right type
// and unit, and every mistake is a ConfigError naming FILE:LINE and the dotted key.
//
//   config::Document doc = config::Document::load("machines/kunpeng920.toml");
//   config::Table root = doc.root();
//   auto cores = root.get<int64_t>("cores");          // required
//   auto hz    = root.frequency("clock");             // required, with unit
//   auto lat   = root.duration_or("c1_exit", 1_us);   // optional, documented default
//   root.finish();                                    // unknown keys are errors
#pragma once

#include <toml++/toml.h>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/error.h"
#include "sim/time.h"

namespace ipisim::config {

// The "file" of values that came from `--set key=value` rather than from a file.
inline constexpr std::string_view kOverrideSource = "--set";

// "an integer", "a string", ... for messages.
const char* type_name(const toml::node& n);

// A key of a Table view whose value lives elsewhere in the same document, such as a sweep
// point's value standing in for a [params] key: reads see `node`, and messages name it `name`
// ("sweep.threads[2]") at the node's own line.
struct Substitute {
    std::string key;
    const toml::node* node = nullptr;
    std::string name;
};

class Table {
public:
    // file: the name used in messages; path: dotted prefix of this table ("" for the root).
    Table(const toml::table* table, std::string file, std::string path);
    // The same view with some keys' values taken from elsewhere (they may be absent here).
    Table(const toml::table* table, std::string file, std::string path, std::vector<Substitute> substitutes);

    [[nodiscard]] bool has(std::string_view key) const;
    [[nodiscard]] const std::string& file() const { return file_; }
    [[nodiscard]] const std::string& path() const { return path_; }
    // The key's name in messages: path.key, or a substitute's own name.
    [[nodiscard]] std::string dotted(std::string_view key) const;
    // Line of a key's value (or of the table when the key is absent); 0 when unknown.
    [[nodiscard]] int line_of(std::string_view key) const;
    // File of a key's value: the table's file, or kOverrideSource for a value set by --set.
    [[nodiscard]] std::string file_of(std::string_view key) const;
    [[nodiscard]] int line() const;

    // Scalars. T is one of int64_t, uint64_t, int, uint32_t, double, bool, std::string.
    template <class T>
    T get(std::string_view key);
    template <class T>
    T get_or(std::string_view key, T fallback);
    template <class T>
    std::optional<T> get_optional(std::string_view key);

    // Quantities with units.
    sim::Picos duration(std::string_view key);
    sim::Picos duration_or(std::string_view key, sim::Picos fallback);
    std::optional<sim::Picos> duration_optional(std::string_view key);
    sim::ClockDomain frequency(std::string_view key);

    // Arrays of scalars.
    template <class T>
    std::vector<T> array(std::string_view key);
    std::vector<sim::Picos> duration_array(std::string_view key);

    // Sub-tables and arrays of tables.
    Table table(std::string_view key);
    std::optional<Table> table_optional(std::string_view key);
    std::vector<Table> table_array(std::string_view key);
    // Keys of this table in file order (for tables whose keys are names, e.g. [sweep]);
    // substituted keys absent from the table come after them.
    [[nodiscard]] std::vector<std::string> keys() const;
    // Marks a key as read without reading it (its value is handled elsewhere).
    void mark_used(std::string_view key);
    [[nodiscard]] const toml::node* raw(std::string_view key) const;

    // Every key that was not read is an error.
    void finish() const;

    [[noreturn]] void fail(std::string_view key, const std::string& problem) const;
    // Fails at a node's own location (an array element, a value set by --set).
    [[noreturn]] void fail_at(const toml::node& n, const std::string& key, const std::string& problem) const;

private:
    [[nodiscard]] const Substitute* substitute(std::string_view key) const;
    [[nodiscard]] const toml::node* find(std::string_view key) const;
    const toml::node* node_or_fail(std::string_view key);
    template <class T>
    T convert(std::string_view key, const toml::node& n) const;

    const toml::table* table_;
    std::string file_;
    std::string path_;
    std::vector<Substitute> substitutes_;
    std::set<std::string, std::less<>> used_;
    // Every key the reader asked for (present or not), in the order first asked: the known
    // keys, which finish() suggests for an unknown one.
    mutable std::vector<std::string> asked_;
    void ask(std::string_view key) const;
};

// A parsed TOML file; keeps the tree alive for the Tables that view it.
class Document {
public:
    // Parse errors become ConfigError with the parser's line.
    static Document load(const std::string& path);
    // The text of a config file; a missing or unreadable file is a ConfigError naming it.
    static std::string read_text(const std::string& path);
    static Document parse(std::string_view text, const std::string& name);
    // A document of an already parsed tree (e.g. a table moved out of another document: moved
    // nodes keep their source lines). `name` is the file named in messages.
    static Document adopt(toml::table tree, const std::string& name);

    Table root() const;
    [[nodiscard]] const std::string& name() const { return name_; }
    [[nodiscard]] toml::table& tree() { return *tree_; }
    [[nodiscard]] const toml::table& tree() const { return *tree_; }

    // Applies "dotted.key=value" (value in TOML syntax; a bare word is taken as a string).
    // The key must name an existing value of the same kind, or a key the schema accepts (checked
    // later by finish()). Errors name "--set" as the file.
    void apply_override(const std::string& assignment);

private:
    std::shared_ptr<toml::table> tree_;
    std::string name_;
};

}  // namespace ipisim::config
