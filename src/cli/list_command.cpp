#include "cli/list_command.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "config/error.h"
#include "report/text_table.h"
#include "sim/registry.h"

namespace ipisim::cli {

namespace {

// A data directory the listing shows must exist: else "DIR: FLAG: no such directory" (or "not a
// directory", "cannot be read: ..."), exit 2, instead of an empty listing.
void check_data_dir(const std::string& dir, const std::string& flag) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(dir, ec);
    if (std::filesystem::is_directory(st)) return;
    if (st.type() == std::filesystem::file_type::not_found)
        throw config::ConfigError(dir, 0, flag, "no such directory");
    if (st.type() == std::filesystem::file_type::none) {
        throw config::ConfigError(dir, 0, flag, "cannot be read: " + ec.message());
    }
    throw config::ConfigError(dir, 0, flag, "not a directory");
}

std::vector<std::filesystem::path> toml_files(const std::string& dir) {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.is_regular_file(ec) && entry.path().extension() == ".toml") out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Read leniently, for listing only: a file that does not parse is listed by its name alone.
std::string string_at(const std::filesystem::path& file, std::initializer_list<const char*> paths) {
    try {
        const toml::table t = toml::parse_file(file.string());
        for (const char* p : paths) {
            if (auto s = t.at_path(p).value<std::string>()) return *s;
        }
    } catch (const toml::parse_error&) {
    }
    return "";
}

std::string indent(const std::string& text) {
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        out += "  ";
        out += text.substr(start, end - start + 1);
        start = end == std::string::npos ? text.size() : end + 1;
    }
    return out;
}

std::string files_section(const char* title, const std::string& dir, std::initializer_list<const char*> name_paths,
                          std::initializer_list<const char*> description_paths) {
    const auto files = toml_files(dir);
    std::string out = fmt::format("{} ({}):\n", title, dir);
    if (files.empty()) return out + "  (none)\n";
    std::vector<std::vector<std::string>> rows;
    bool any_name = false;
    for (const auto& f : files) {
        rows.push_back({f.stem().string(), string_at(f, name_paths), string_at(f, description_paths)});
        any_name = any_name || !rows.back()[1].empty();
    }
    // Files named by their stem only (machines have no `name`) list without a name column.
    report::TextTable table(any_name ? std::vector<std::string>{"file", "name", "description"}
                                     : std::vector<std::string>{"name", "description"});
    for (auto& row : rows) {
        if (!any_name) row.erase(row.begin() + 1);
        table.add_row(std::move(row));
    }
    return out + indent(table.render());
}

std::string components_section() {
    std::map<std::string, std::vector<const sim::CatalogEntry*>> by_kind;
    for (const auto& entry : sim::catalog()) by_kind[entry.kind].push_back(&entry);
    std::string out = "components:\n";
    if (by_kind.empty()) return out + "  (none)\n";
    for (auto& [kind, entries] : by_kind) {
        std::sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->name < b->name; });
        report::TextTable table({kind, "description"});
        for (const auto* e : entries) table.add_row({e->name, e->description});
        out += indent(table.render());
    }
    return out;
}

}  // namespace

std::string render_list(const DataDirs& dirs) {
    check_data_dir(dirs.machines, "--machines");
    check_data_dir(dirs.experiments, "--experiments");
    return files_section("machines", dirs.machines, {"name", "machine.name"}, {"description", "machine.description"}) +
           "\n" + files_section("experiments", dirs.experiments, {"experiment.name"}, {"experiment.description"}) +
           "\n" + components_section();
}

}  // namespace ipisim::cli
