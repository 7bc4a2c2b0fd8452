#include "report/sensitivity_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "config/schema.h"
#include "report/text_table.h"

namespace ipisim::report {

namespace {

using Json = nlohmann::ordered_json;

// A cost value for people: durations in ns, frequencies in GHz, others as they are.
std::string cost_value_text(config::ParamType type, double v) {
    switch (type) {
        case config::ParamType::duration:
            return number_text(v / 1000.0) + " ns";
        case config::ParamType::frequency:
            return number_text(v / 1e6) + " GHz";
        default:
            return number_text(v);
    }
}

}  // namespace

std::string sensitivity_text(const nlohmann::ordered_json& s, size_t top) {
    std::string out =
        fmt::format("sensitivity: {}  machine: {}  seed: {}\n{}; {} ranged costs\n",
                    s.at("experiment").get<std::string>(), s.at("machine").get<std::string>(),
                    s.at("seed").get<uint64_t>(), s.at("method").get<std::string>(), s.at("costs").size());
    std::map<std::string, Json> costs;
    for (const Json& c : s.at("costs")) costs[c.at("key").get<std::string>()] = c;
    for (const Json& q : s.at("quantities")) {
        std::string params;
        for (const auto& [k, v] : q.at("params").items()) {
            if (std::find(s.at("swept").begin(), s.at("swept").end(), k) == s.at("swept").end()) continue;
            params += fmt::format("{}{}={}", params.empty() ? "" : " ", k, cell_text(v));
        }
        const std::string metric = q.at("metric").get<std::string>();
        out +=
            fmt::format("\n{}{}: nominal {}\n", q.at("name").get<std::string>(), params.empty() ? "" : " at " + params,
                        metric_text(q.at("name").get<std::string>() == metric ? metric : "", q.at("nominal")));
        const bool unmoved = std::all_of(q.at("effects").begin(), q.at("effects").end(), [](const Json& f) {
            return f.at("swing").is_number() && f.at("swing").get<double>() == 0 && !f.contains("low_refused") &&
                   !f.contains("high_refused");
        });
        if (unmoved && !q.at("effects").empty()) {
            out += fmt::format("no ranged cost moves it: each of the {} gives the nominal value at both ends\n",
                               q.at("effects").size());
            continue;
        }
        TextTable table({"cost", "mark", "range", "at low", "at high", "swing", "relative"});
        size_t shown = 0;
        for (const Json& f : q.at("effects")) {
            if (shown++ == top) break;
            const Json& c = costs.at(f.at("key").get<std::string>());
            const auto type = c.at("type").get<std::string>();
            const config::ParamType t = type == "duration"    ? config::ParamType::duration
                                        : type == "frequency" ? config::ParamType::frequency
                                                              : config::ParamType::number;
            const std::string m = q.at("name").get<std::string>() == metric ? metric : "";
            table.add_row(
                {f.at("key").get<std::string>(), c.at("mark").get<std::string>(),
                 cost_value_text(t, c.at("lo").get<double>()) + " .. " + cost_value_text(t, c.at("hi").get<double>()) +
                     (c.value("over", std::string("range")) == "fit interval" ? " (fit)" : ""),
                 f.contains("low_refused") ? "refused" : metric_text(m, f.at("low")),
                 f.contains("high_refused") ? "refused" : metric_text(m, f.at("high")), metric_text(m, f.at("swing")),
                 f.at("relative").is_number() ? fmt::format("{:+.1f}%", f.at("relative").get<double>() * 100) : "-"});
        }
        out += table.render();
    }
    // Range ends the machine's own checks refuse, once each.
    std::string refused;
    if (!s.at("quantities").empty()) {
        for (const Json& f : s.at("quantities").at(0).at("effects")) {
            for (const char* end : {"low_refused", "high_refused"}) {
                if (f.contains(end)) {
                    refused +=
                        fmt::format("  {} at its {} end: {}\n", f.at("key").get<std::string>(),
                                    std::string(end).substr(0, std::string(end).find('_')), f[end].get<std::string>());
                }
            }
        }
    }
    if (!refused.empty()) out += "\nrefused (the range crosses a constraint of the model; swing 0 above):\n" + refused;
    return out;
}

}  // namespace ipisim::report
