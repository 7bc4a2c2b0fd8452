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
    std::string out = fmt::format("sensitivity: {}  machine: {}  seed: {}\n{}; {} ranged costs\n",
                                  s["experiment"].get<std::string>(), s["machine"].get<std::string>(),
                                  s["seed"].get<uint64_t>(), s["method"].get<std::string>(), s["costs"].size());
    std::map<std::string, Json> costs;
    for (const Json& c : s["costs"]) costs[c["key"].get<std::string>()] = c;
    for (const Json& q : s["quantities"]) {
        std::string params;
        for (const auto& [k, v] : q["params"].items()) {
            if (std::find(s["swept"].begin(), s["swept"].end(), k) == s["swept"].end()) continue;
            params += fmt::format("{}{}={}", params.empty() ? "" : " ", k, cell_text(v));
        }
        const std::string metric = q["metric"].get<std::string>();
        out += fmt::format("\n{}{}: nominal {}\n", q["name"].get<std::string>(), params.empty() ? "" : " at " + params,
                           metric_text(q["name"].get<std::string>() == metric ? metric : "", q["nominal"]));
        const bool unmoved = std::all_of(q["effects"].begin(), q["effects"].end(), [](const Json& f) {
            return f["swing"].is_number() && f["swing"].get<double>() == 0 && !f.contains("low_refused") &&
                   !f.contains("high_refused");
        });
        if (unmoved && !q["effects"].empty()) {
            out += fmt::format("no ranged cost moves it: each of the {} gives the nominal value at both ends\n",
                               q["effects"].size());
            continue;
        }
        TextTable table({"cost", "mark", "range", "at low", "at high", "swing", "relative"});
        size_t shown = 0;
        for (const Json& f : q["effects"]) {
            if (shown++ == top) break;
            const Json& c = costs[f["key"].get<std::string>()];
            const auto type = c["type"].get<std::string>();
            const config::ParamType t = type == "duration"    ? config::ParamType::duration
                                        : type == "frequency" ? config::ParamType::frequency
                                                              : config::ParamType::number;
            const std::string m = q["name"].get<std::string>() == metric ? metric : "";
            table.add_row(
                {f["key"].get<std::string>(), c["mark"].get<std::string>(),
                 cost_value_text(t, c["lo"].get<double>()) + " .. " + cost_value_text(t, c["hi"].get<double>()),
                 f.contains("low_refused") ? "refused" : metric_text(m, f["low"]),
                 f.contains("high_refused") ? "refused" : metric_text(m, f["high"]), metric_text(m, f["swing"]),
                 f["relative"].is_number() ? fmt::format("{:+.1f}%", f["relative"].get<double>() * 100) : "-"});
        }
        out += table.render();
    }
    // Range ends the machine's own checks refuse, once each.
    std::string refused;
    if (!s["quantities"].empty()) {
        for (const Json& f : s["quantities"][0]["effects"]) {
            for (const char* end : {"low_refused", "high_refused"}) {
                if (f.contains(end)) {
                    refused +=
                        fmt::format("  {} at its {} end: {}\n", f["key"].get<std::string>(),
                                    std::string(end).substr(0, std::string(end).find('_')), f[end].get<std::string>());
                }
            }
        }
    }
    if (!refused.empty()) out += "\nrefused (the range crosses a constraint of the model; swing 0 above):\n" + refused;
    return out;
}

}  // namespace ipisim::report
