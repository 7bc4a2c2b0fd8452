// Test support: checks a JSON document against the Chrome trace-event format as Perfetto's JSON
// importer reads it, and returns what is wrong (empty: valid).
//
//   * {"traceEvents": [...]} with every event an object whose "ph" is a known phase;
//   * required fields per phase: name (string), pid (integer) for all; ts (number >= 0) for
//     all but M; tid (integer) for thread events (X B E i s t f); dur >= 0 for X; id and cat
//     for flows (s t f); a non-empty args object of numbers for C; args.name or
//     args.sort_index for M; "s" of an instant is g, p or t;
//   * B/E pair up per track, X slices nest (no partial overlap), and timestamps never go
//     back on a track (pid, tid) nor on a counter (pid, name);
//   * every flow (cat, name, id) has exactly one "s" and one "f", the "f" not before the "s";
//   * timestamps are microseconds: every ts (and ts + dur) lies in [from_us, to_us];
//   * every thread with events is named by a thread_name metadata event.
#pragma once

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ipisim::test {

inline std::vector<std::string> validate_trace_events(const nlohmann::json& doc, double from_us, double to_us) {
    std::vector<std::string> problems;
    auto bad = [&](size_t i, const std::string& what) { problems.push_back(fmt::format("event {}: {}", i, what)); };
    if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
        return {"not an object with a traceEvents array"};
    }
    const std::string phases = "XBEiIstfCM";
    const std::string thread_phases = "XBEiIstf";
    using Track = std::pair<int64_t, int64_t>;
    std::map<Track, double> last_ts;
    std::map<Track, std::vector<double>> open_x;  // end times of enclosing X slices
    std::map<Track, std::vector<std::string>> open_b;
    std::map<std::pair<int64_t, std::string>, double> counter_ts;
    std::map<std::tuple<std::string, std::string, std::string>, std::pair<int, int>> flows;  // s, f counts
    std::map<std::tuple<std::string, std::string, std::string>, double> flow_start;
    std::set<Track> named, used;
    constexpr double eps = 1e-9;
    const auto& events = doc["traceEvents"];
    for (size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        if (!e.is_object()) {
            bad(i, "not an object");
            continue;
        }
        if (!e.contains("ph") || !e["ph"].is_string() || e["ph"].get<std::string>().size() != 1 ||
            phases.find(e["ph"].get<std::string>()[0]) == std::string::npos) {
            bad(i, "no known ph");
            continue;
        }
        const char ph = e["ph"].get<std::string>()[0];
        if (!e.contains("name") || !e["name"].is_string()) bad(i, "name is not a string");
        if (!e.contains("pid") || !e["pid"].is_number_integer()) bad(i, "pid is not an integer");
        const bool thread = thread_phases.find(ph) != std::string::npos;
        if ((thread || ph == 'M') && (!e.contains("tid") || !e["tid"].is_number_integer())) {
            bad(i, "tid is not an integer");
        }
        if (!problems.empty() && problems.back().rfind(fmt::format("event {}:", i), 0) == 0) continue;
        const std::string name = e["name"].get<std::string>();
        const int64_t pid = e["pid"].get<int64_t>();
        const Track track{pid, e.value("tid", int64_t{0})};
        if (ph == 'M') {
            if (!e.contains("args") || !e["args"].is_object() ||
                (!e["args"].contains("name") && !e["args"].contains("sort_index"))) {
                bad(i, "metadata without args.name or args.sort_index");
            }
            if (name == "thread_name") named.insert(track);
            continue;
        }
        if (!e.contains("ts") || !e["ts"].is_number() || e["ts"].get<double>() < 0) {
            bad(i, "ts is not a number >= 0");
            continue;
        }
        const double ts = e["ts"].get<double>();
        double end = ts;
        if (ph == 'X') {
            if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
                bad(i, "X without a dur >= 0");
                continue;
            }
            end = ts + e["dur"].get<double>();
        }
        if (ts < from_us - eps || end > to_us + eps) {
            bad(i, fmt::format("ts {} .. {} outside the window [{}, {}] us", ts, end, from_us, to_us));
        }
        if (ph == 'C') {
            bool ok = e.contains("args") && e["args"].is_object() && !e["args"].empty();
            if (ok) {
                for (const auto& [k, v] : e["args"].items()) ok = ok && v.is_number();
            }
            if (!ok) bad(i, "counter without numeric args");
            auto [it, fresh] = counter_ts.try_emplace({pid, name}, ts);
            if (!fresh && ts < it->second) bad(i, "counter goes back in time");
            it->second = ts;
            continue;
        }
        used.insert(track);
        auto [it, fresh] = last_ts.try_emplace(track, ts);
        if (!fresh && ts < it->second) bad(i, fmt::format("ts {} goes back on its track (last {})", ts, it->second));
        it->second = ts;
        if (ph == 'X') {
            auto& stack = open_x[track];
            while (!stack.empty() && stack.back() <= ts + eps) stack.pop_back();
            if (!stack.empty() && end > stack.back() + eps) bad(i, "X slice overlaps its enclosing slice");
            stack.push_back(end);
        } else if (ph == 'B') {
            open_b[track].push_back(name);
        } else if (ph == 'E') {
            if (open_b[track].empty()) {
                bad(i, "E without B");
            } else {
                open_b[track].pop_back();
            }
        } else if (ph == 's' || ph == 't' || ph == 'f') {
            if (!e.contains("id") || !(e["id"].is_number_integer() || e["id"].is_string())) bad(i, "flow without id");
            if (!e.contains("cat") || !e["cat"].is_string()) bad(i, "flow without cat");
            if (!e.contains("id") || !e.contains("cat")) continue;
            const auto key = std::make_tuple(e["cat"].get<std::string>(), name, e["id"].dump());
            if (ph == 's') {
                ++flows[key].first;
                flow_start[key] = ts;
            } else if (ph == 'f') {
                ++flows[key].second;
                if (flow_start.count(key) == 0 || ts < flow_start[key]) bad(i, "flow ends before it starts");
            }
        } else if ((ph == 'i' || ph == 'I') && e.contains("s")) {
            const std::string s = e["s"].is_string() ? e["s"].get<std::string>() : "";
            if (s != "g" && s != "p" && s != "t") bad(i, "instant scope is not g, p or t");
        }
    }
    for (const auto& [track, stack] : open_b) {
        if (!stack.empty()) problems.push_back(fmt::format("track {}/{}: B without E", track.first, track.second));
    }
    for (const auto& [key, counts] : flows) {
        if (counts.first != 1 || counts.second != 1) {
            problems.push_back(fmt::format("flow {} {} {}: {} starts, {} ends", std::get<0>(key), std::get<1>(key),
                                           std::get<2>(key), counts.first, counts.second));
        }
    }
    for (const Track& t : used) {
        if (named.count(t) == 0) problems.push_back(fmt::format("track {}/{} has no thread_name", t.first, t.second));
    }
    return problems;
}

}  // namespace ipisim::test
