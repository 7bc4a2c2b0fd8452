// A plain-text table with aligned columns: text left-aligned, numbers right-aligned.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ipisim::report {

class TextTable {
public:
    explicit TextTable(std::vector<std::string> header);

    // Cells beyond the header's width are dropped; missing cells are blank.
    void add_row(std::vector<std::string> cells);
    [[nodiscard]] std::string render() const;

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

// A JSON scalar as a table cell or CSV field: strings bare, numbers with 6 significant digits
// (integers in full), anything else as JSON.
std::string cell_text(const nlohmann::ordered_json& value);

}  // namespace ipisim::report
