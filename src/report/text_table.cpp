#include "report/text_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>

namespace ipisim::report {

namespace {

// "12", "-3.5e-07", "+1.2%", "1.05M", "933k": right-aligned. "256-CPU host" is text.
bool looks_numeric(std::string_view s) {
    if (s == "inf" || s == "nan") return true;
    if (!s.empty() && std::string_view("kMGT%").find(s.back()) != std::string_view::npos) s.remove_suffix(1);
    bool digit = false;
    for (char c : s) {
        if (c >= '0' && c <= '9') {
            digit = true;
        } else if (c != '-' && c != '+' && c != '.' && c != 'e' && c != '%') {
            return false;
        }
    }
    return digit;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

void TextTable::add_row(std::vector<std::string> cells) {
    cells.resize(header_.size());
    rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
    std::vector<size_t> width(header_.size());
    for (size_t c = 0; c < header_.size(); ++c) {
        width[c] = header_[c].size();
        for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
    }
    auto line = [&](const std::vector<std::string>& cells, bool is_header) {
        std::string out;
        for (size_t c = 0; c < cells.size(); ++c) {
            if (c > 0) out += "  ";
            bool right = !is_header && looks_numeric(cells[c]);
            out += right ? fmt::format("{:>{}}", cells[c], width[c]) : fmt::format("{:<{}}", cells[c], width[c]);
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        return out + "\n";
    };
    std::string out = line(header_, true);
    std::vector<std::string> rule;
    for (size_t w : width) rule.emplace_back(w, '-');
    out += line(rule, true);
    for (const auto& row : rows_) out += line(row, false);
    return out;
}

std::string number_text(double v) {
    if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
    if (v == 0) return "0";
    static constexpr const char* kSuffix[] = {"", "k", "M", "G", "T"};
    double a = std::abs(v);
    size_t k = 0;
    // Scale while the value, rounded to three digits, reaches 1000 (999.7 is "1k", not "1e+03").
    while (k + 1 < std::size(kSuffix) && std::stod(fmt::format("{:.3g}", a)) >= 1000) {
        a /= 1000;
        ++k;
    }
    return fmt::format("{}{:.3g}{}", v < 0 ? "-" : "", a, kSuffix[k]);
}

std::string percent_text(double share) {
    return number_text(share * 100) + "%";
}

bool is_share(std::string_view metric) {
    return metric.size() >= 5 && metric.substr(metric.size() - 5) == "share";
}

std::string metric_text(std::string_view metric, const nlohmann::ordered_json& value) {
    if (!value.is_number() || value.is_boolean()) return cell_text(value);
    const double v = value.get<double>();
    return is_share(metric) ? percent_text(v) : number_text(v);
}

bool nominal_outside_interval(std::string_view metric, const ResultRow& row) {
    const auto it = row.metrics_interval.find(std::string(metric));
    if (it == row.metrics_interval.end() || !it->is_array() || it->size() != 2) return false;
    const auto v = row.metrics.find(std::string(metric));
    if (v == row.metrics.end() || !v->is_number() || !(*it)[0].is_number() || !(*it)[1].is_number()) return false;
    const double x = v->get<double>();
    return x < (*it)[0].get<double>() || x > (*it)[1].get<double>();
}

std::string interval_text(std::string_view metric, const ResultRow& row) {
    const auto it = row.metrics_interval.find(std::string(metric));
    if (it == row.metrics_interval.end() || !it->is_array() || it->size() != 2) return "";
    return fmt::format(" [{}, {}]{}", metric_text(metric, (*it)[0]), metric_text(metric, (*it)[1]),
                       nominal_outside_interval(metric, row) ? "*" : "");
}

std::string cell_text(const nlohmann::ordered_json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_float()) return fmt::format("{:.6g}", value.get<double>());
    if (value.is_number_unsigned()) return fmt::format("{}", value.get<uint64_t>());
    if (value.is_number_integer()) return fmt::format("{}", value.get<int64_t>());
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_null()) return "";
    return value.dump();
}

}  // namespace ipisim::report
