// One declaration per parameter: name, type, unit, default or required, allowed values, and for
// hardware costs a provenance mark with its source and plausible range. A declaration drives
// reading (with FILE:LINE: key errors), listing (`ipisim list --params`), the resolved
// config.toml (every default written) and generated skeletons.
//
//   struct Params { int64_t threads = 0; Mode mode{}; sim::Picos warmup; };
//   static const config::Schema<Params>& schema() {
//       static const auto s = config::Schema<Params>("tlb_flush2", "will-it-scale tlb_flush2")
//           .param("threads", &Params::threads, "tasks, one per CPU").at_least(1)
//           .choice("mode", &Params::mode, {{"threads", Mode::threads}, {"processes", Mode::processes}},
//                   "tasks share one mm (threads) or have one each").def(Mode::threads)
//           .param("warmup", &Params::warmup, "simulated time before the window").def(2_ms);
//       return s;
//   }
//   Params p = schema().read(table);          // strict: unknown keys are errors
//
// Types follow the field: integers (int, int64_t, uint32_t, uint64_t), double (finite numbers
// only), bool, std::string, sim::Picos (a duration string with a unit), sim::ClockDomain (a
// frequency string), an enum or std::string with choice(), and std::optional<X> of any of these
// for a value that may be absent with no default.
//
// Applicability: `.when("smt")` makes a parameter required where the condition holds and an
// error where it does not (a value never sits in a file unused). Conditions are named booleans
// passed to read(), or computed from fields already read with `.sets("name", fn)`.
//
// Costs: `.cost()` marks a hardware cost. In a machine file its value may carry its provenance
// as an inline table:
//   same_l3 = { value = "60 ns", mark = "A", range = ["40 ns", "75 ns"], source = "why 60" }
// mark P (published), D (derived), A (assumption: range required), F (fitted: range and target
// required); `range` is the plausible range (A, F) or the published spread (P, D) and must hold
// the value. A plain value is unmarked. `--set key=value` on a marked cost replaces its value
// and marks it "set" (a resolved configuration writes mark = "set" back).
#pragma once

#include <toml++/toml.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "config/suggest.h"
#include "config/table.h"
#include "sim/time.h"

namespace ipisim::config {

enum class ParamType : uint8_t { integer, number, boolean, string, choice, duration, frequency };
const char* to_string(ParamType t);

// Provenance marks of docs/calibration.md.
enum class Mark : uint8_t { unmarked, P, D, A, F, set };
const char* to_string(Mark m);  // "P", "D", "A", "F", "-" (unmarked), "set" (--set override)

// A plausible range (A, F) or published spread (P, D) in the parameter's base unit: ps for
// durations, kHz for frequencies, the plain value otherwise.
struct Range {
    double lo = 0;
    double hi = 0;
};

// Where a cost value comes from, as its machine file states it.
struct Provenance {
    Mark mark = Mark::unmarked;
    std::optional<Range> range;
    std::string source;  // the citation or the rationale
    std::string target;  // F: the calibration target it was fitted to
    // F: the values the fit leaves possible, its 95% interval given the targets' spreads
    // (`ipisim calibrate`, experiment/fit_uncertainty.h), inside `range`. --uncertainty and
    // sensitivity sample it instead of the range; a refit still searches the whole range.
    std::optional<Range> fit;
};

// One cost value read from a file: its dotted key, value in base units, and provenance.
struct CostValue {
    std::string key;  // dotted, e.g. "coherence.same_l3"
    ParamType type = ParamType::duration;
    double value = 0;
    Provenance provenance;
    std::string file;
    int line = 0;
};
using CostRecord = std::vector<CostValue>;

// The declaration of one parameter, for listings and generated files.
struct ParamInfo {
    std::string key;
    ParamType type = ParamType::integer;
    std::string unit;  // "" for plain values; durations and frequencies carry theirs in the text
    std::string doc;
    bool required = true;
    bool optional = false;     // may be absent, no default
    std::string default_text;  // TOML text of the default ("\"2 ms\"", "true"), empty if none
    std::string default_doc;   // a computed default, in words
    std::vector<std::string> choices;
    std::optional<double> min;  // base unit
    std::optional<double> max;
    int64_t type_min = std::numeric_limits<int64_t>::min();  // integers: the field's C++ type
    int64_t type_max = std::numeric_limits<int64_t>::max();
    bool cost = false;
    std::string when;  // condition under which it applies ("" = always)
};

struct SchemaInfo {
    std::string name;
    std::string doc;
    std::vector<ParamInfo> params;
};

// Every declared schema, for `ipisim list --params`: name -> info.
std::map<std::string, std::function<SchemaInfo()>>& schema_catalog();
struct SchemaRegistration {
    SchemaRegistration(const std::string& name, std::function<SchemaInfo()> info);
};

// The exact TOML text of a duration ("2 ms", "1500 ps"): parses back to the same picoseconds.
std::string duration_text(sim::Picos t);
// The exact text of a frequency ("2 GHz", "2450 MHz", "1 kHz").
std::string frequency_text(sim::ClockDomain f);

// Named booleans for `.when()`.
using Conditions = std::map<std::string, bool, std::less<>>;

namespace detail {

template <class X>
struct is_optional : std::false_type {};
template <class X>
struct is_optional<std::optional<X>> : std::true_type {
    using type = X;
};

template <class X>
constexpr ParamType type_of() {
    if constexpr (std::is_same_v<X, bool>) {
        return ParamType::boolean;
    } else if constexpr (std::is_integral_v<X>) {
        return ParamType::integer;
    } else if constexpr (std::is_floating_point_v<X>) {
        return ParamType::number;
    } else if constexpr (std::is_same_v<X, std::string>) {
        return ParamType::string;
    } else if constexpr (std::is_same_v<X, sim::Picos>) {
        return ParamType::duration;
    } else if constexpr (std::is_same_v<X, sim::ClockDomain>) {
        return ParamType::frequency;
    } else {
        return ParamType::choice;
    }
}

// A value as read from a node: numbers in base units, strings for strings and choices.
struct Scalar {
    ParamType type = ParamType::integer;
    int64_t i = 0;
    double d = 0;  // numbers; ps for durations; kHz for frequencies
    bool b = false;
    std::string s;
};

// Reads one declared parameter's node (plain or marked) strictly; records cost provenance.
// Errors are located at the node. Returns nullopt when the key is absent.
struct ReadContext {
    Table* table = nullptr;
    CostRecord* costs = nullptr;
};
std::optional<Scalar> read_scalar(ReadContext& ctx, const ParamInfo& info);
std::string scalar_text(ParamType type, const Scalar& s);  // TOML text of a value
[[noreturn]] void fail_range(Table& t, const ParamInfo& info, const std::string& problem);
std::string bound_text(const ParamInfo& info, double v);

}  // namespace detail

template <class T>
class Schema {
public:
    explicit Schema(std::string name, std::string doc = "") : name_(std::move(name)), doc_(std::move(doc)) {}

    // A field of type X (see the header comment); required unless given a default.
    template <class X>
    Schema& param(std::string key, X T::*field, std::string doc) {
        using V = typename std::conditional_t<detail::is_optional<X>::value, detail::is_optional<X>,
                                              std::type_identity<X>>::type;
        static_assert(detail::type_of<V>() != ParamType::choice, "an enum parameter needs choice()");
        Entry e;
        e.info.key = std::move(key);
        e.info.type = detail::type_of<V>();
        e.info.doc = std::move(doc);
        e.info.optional = detail::is_optional<X>::value;
        e.info.required = !e.info.optional;
        if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
            e.info.type_min = static_cast<int64_t>(std::numeric_limits<V>::min());
            e.info.type_max = std::numeric_limits<V>::max() >
                                      static_cast<std::make_unsigned_t<V>>(std::numeric_limits<int64_t>::max())
                                  ? std::numeric_limits<int64_t>::max()
                                  : static_cast<int64_t>(std::numeric_limits<V>::max());
        }
        e.assign = [field](T& t, const detail::Scalar& s) { t.*field = from_scalar<V>(s); };
        e.value = [field](const T& t) -> std::optional<detail::Scalar> {
            if constexpr (detail::is_optional<X>::value) {
                if (!(t.*field)) return std::nullopt;
                return to_scalar<V>(*(t.*field));
            } else {
                return to_scalar<V>(t.*field);
            }
        };
        entries_.push_back(std::move(e));
        return *this;
    }

    // A field whose value is one of named choices (an enum, or a string restricted to names).
    template <class E>
    Schema& choice(std::string key, E T::*field, std::vector<std::pair<std::string, E>> values, std::string doc) {
        Entry e;
        e.info.key = std::move(key);
        e.info.type = ParamType::choice;
        e.info.doc = std::move(doc);
        for (const auto& [n, v] : values) e.info.choices.push_back(n);
        auto shared = std::make_shared<std::vector<std::pair<std::string, E>>>(std::move(values));
        e.name_of = [shared](const void* p) {
            for (const auto& [n, v] : *shared) {
                if (v == *static_cast<const E*>(p)) return n;
            }
            throw std::logic_error("choice value without a name");
        };
        e.assign = [field, shared](T& t, const detail::Scalar& s) {
            for (const auto& [n, v] : *shared) {
                if (n == s.s) t.*field = v;
            }
        };
        e.value = [field, shared](const T& t) -> std::optional<detail::Scalar> {
            for (const auto& [n, v] : *shared) {
                if (v == t.*field) {
                    detail::Scalar s;
                    s.type = ParamType::choice;
                    s.s = n;
                    return s;
                }
            }
            return std::nullopt;
        };
        entries_.push_back(std::move(e));
        return *this;
    }

    // --- modifiers of the last declared parameter ---
    template <class V>
    Schema& def(const V& v) {
        Entry& e = last();
        const detail::Scalar s = scalar_of(e.info.type, e.info.key, e.name_of, v);
        e.info.required = false;
        e.info.default_text = detail::scalar_text(e.info.type, s);
        e.fallback = [s](const T&) { return s; };
        return *this;
    }
    // A default computed from the fields read before (e.g. from the kernel version).
    template <class V>
    Schema& def_fn(std::function<V(const T&)> fn, std::string in_words) {
        Entry& e = last();
        e.info.required = false;
        e.info.default_doc = std::move(in_words);
        e.fallback = [fn, type = e.info.type, key = e.info.key, name_of = e.name_of](const T& t) {
            return scalar_of(type, key, name_of, fn(t));
        };
        return *this;
    }
    Schema& at_least(double v) {
        last().info.min = v;
        return *this;
    }
    Schema& at_most(double v) {
        last().info.max = v;
        return *this;
    }
    Schema& unit(std::string u) {
        last().info.unit = std::move(u);
        return *this;
    }
    Schema& cost() {
        last().info.cost = true;
        return *this;
    }
    Schema& when(std::string condition) {
        last().info.when = std::move(condition);
        return *this;
    }
    // After this parameter is read, condition `name` = fn(fields so far).
    Schema& sets(const std::string& name, std::function<bool(const T&)> fn) {
        // Assigned in place: moving a long name into a new pair, once inlined, draws GCC 12's
        // false -Warray-bounds on std::string's copy (xapic_mmio.cpp, with the core's
        // precompiled header, CMakeLists.txt).
        auto& s = last().sets.emplace_back();
        s.first = name;
        s.second = std::move(fn);
        return *this;
    }
    // A check of the value just read against the others; return a problem ("" = fine).
    Schema& check(std::function<std::string(const T&)> fn) {
        last().check = std::move(fn);
        return *this;
    }

    // Reads every declared key of `t` into `out` in declaration order, then finish(): unknown
    // keys are errors. `costs` (optional) receives the provenance of every cost read.
    void read_into(Table t, T& out, Conditions conditions = {}, CostRecord* costs = nullptr) const {
        read_keys(t, out, conditions, costs);
        t.finish();
    }
    // The same without finish(), for tables that hold further keys read elsewhere.
    void read_keys(Table& t, T& out, Conditions& conditions, CostRecord* costs = nullptr) const {
        detail::ReadContext ctx{&t, costs};
        for (const Entry& e : entries_) {
            const bool applies = e.info.when.empty() || condition(conditions, e.info.when, t);
            if (!applies) {
                if (t.has(e.info.key)) t.fail(e.info.key, fmt::format("only meaningful when {}", e.info.when));
            } else if (std::optional<detail::Scalar> s = detail::read_scalar(ctx, e.info)) {
                check_choice(t, e.info, *s);
                e.assign(out, *s);
            } else if (e.fallback) {
                e.assign(out, e.fallback(out));
            } else if (e.info.required) {
                t.fail(e.info.key, "required key is missing");
            }
            if (applies && e.check) {
                const std::string problem = e.check(out);
                if (!problem.empty()) t.fail(e.info.key, problem);
            }
            for (const auto& [name, fn] : e.sets) conditions[name] = fn(out);
        }
    }
    T read(Table t, Conditions conditions = {}, CostRecord* costs = nullptr) const {
        T out{};
        read_into(std::move(t), out, std::move(conditions), costs);
        return out;
    }

    // Writes every applicable value of `v` into `table` (defaults included), costs with their
    // provenance from `costs` (keys relative to `prefix`) where known.
    void write(const T& v, toml::table& table, const Conditions& conditions = {}, const CostRecord* costs = nullptr,
               const std::string& prefix = "") const {
        Conditions c = conditions;
        for (const Entry& e : entries_) {
            bool applies = true;
            if (!e.info.when.empty()) {
                auto it = c.find(e.info.when);
                applies = it != c.end() && it->second;
            }
            if (applies) {
                if (std::optional<detail::Scalar> s = e.value(v)) write_value(table, e.info, *s, costs, prefix);
            }
            for (const auto& [name, fn] : e.sets) c[name] = fn(v);
        }
    }

    // The value of every field of `v` that has one (optional fields may not), in declaration
    // order, conditions ignored: e.g. a workload's metrics as named values.
    [[nodiscard]] std::vector<std::pair<std::string, detail::Scalar>> values(const T& v) const {
        std::vector<std::pair<std::string, detail::Scalar>> out;
        for (const Entry& e : entries_) {
            if (std::optional<detail::Scalar> s = e.value(v)) out.emplace_back(e.info.key, *s);
        }
        return out;
    }

    [[nodiscard]] SchemaInfo info() const {
        SchemaInfo out{name_, doc_, {}};
        for (const Entry& e : entries_) out.params.push_back(e.info);
        return out;
    }
    [[nodiscard]] const std::string& name() const { return name_; }

private:
    struct Entry {
        ParamInfo info;
        std::function<void(T&, const detail::Scalar&)> assign;
        std::function<std::optional<detail::Scalar>(const T&)> value;
        std::function<detail::Scalar(const T&)> fallback;
        std::vector<std::pair<std::string, std::function<bool(const T&)>>> sets;
        std::function<std::string(const T&)> check;
        std::function<std::string(const void*)> name_of;  // choice(): the name of an E value
    };

    // The scalar of a default: choices by name (an enum value, or the name as a string).
    template <class V>
    static detail::Scalar scalar_of(ParamType type, const std::string& key,
                                    const std::function<std::string(const void*)>& name_of, const V& v) {
        if (type == ParamType::choice) {
            detail::Scalar s;
            s.type = ParamType::choice;
            if constexpr (std::is_enum_v<V>) {
                s.s = name_of(&v);
            } else if constexpr (std::is_convertible_v<V, std::string>) {
                s.s = std::string(v);
            } else {
                throw std::logic_error("default of choice " + key + ": an enum value or a name");
            }
            return s;
        }
        if constexpr (std::is_convertible_v<V, std::string> && !std::is_same_v<V, std::string>) {
            return to_scalar<std::string>(std::string(v));
        } else if constexpr (std::is_enum_v<V>) {
            throw std::logic_error("default of " + key + ": an enum value for a non-choice parameter");
        } else {
            return to_scalar<V>(v);
        }
    }

    Entry& last() {
        if (entries_.empty()) throw std::logic_error("schema " + name_ + ": modifier before any parameter");
        return entries_.back();
    }

    static bool condition(const Conditions& c, const std::string& name, const Table& t) {
        auto it = c.find(name);
        if (it == c.end()) {
            throw std::logic_error(fmt::format("{}: condition \"{}\" is not set", t.path(), name));
        }
        return it->second;
    }

    static void check_choice(Table& t, const ParamInfo& info, const detail::Scalar& s) {
        if (info.type != ParamType::choice) return;
        for (const std::string& c : info.choices) {
            if (c == s.s) return;
        }
        std::string names;
        for (const std::string& c : info.choices) names += (names.empty() ? "\"" : ", \"") + c + "\"";
        t.fail(info.key, fmt::format("must be one of {}, got \"{}\"{}", names, s.s, did_you_mean(s.s, info.choices)));
    }

    void write_value(toml::table& table, const ParamInfo& info, const detail::Scalar& s, const CostRecord* costs,
                     const std::string& prefix) const;

    template <class V>
    static detail::Scalar to_scalar(const V& v) {
        detail::Scalar s;
        s.type = detail::type_of<V>();
        if constexpr (std::is_same_v<V, bool>) {
            s.b = v;
        } else if constexpr (std::is_integral_v<V>) {
            s.i = static_cast<int64_t>(v);
            s.d = static_cast<double>(v);
        } else if constexpr (std::is_floating_point_v<V>) {
            s.d = v;
        } else if constexpr (std::is_same_v<V, std::string>) {
            s.s = v;
        } else if constexpr (std::is_same_v<V, sim::Picos>) {
            s.d = static_cast<double>(v.count());
            s.i = static_cast<int64_t>(v.count());
        } else if constexpr (std::is_same_v<V, sim::ClockDomain>) {
            s.d = static_cast<double>(v.khz());
            s.i = static_cast<int64_t>(v.khz());
        } else {
            static_assert(sizeof(V) == 0, "def() of a choice: pass the choice's name as a string");
        }
        return s;
    }
    template <class V>
    static V from_scalar(const detail::Scalar& s) {
        if constexpr (std::is_same_v<V, bool>) {
            return s.b;
        } else if constexpr (std::is_integral_v<V>) {
            return static_cast<V>(s.i);
        } else if constexpr (std::is_floating_point_v<V>) {
            return s.d;
        } else if constexpr (std::is_same_v<V, std::string>) {
            return s.s;
        } else if constexpr (std::is_same_v<V, sim::Picos>) {
            return sim::Picos(static_cast<uint64_t>(s.i));
        } else {
            return sim::ClockDomain(static_cast<uint64_t>(s.i));
        }
    }

    std::string name_;
    std::string doc_;
    std::vector<Entry> entries_;
};

namespace detail {
// Writes one value (marked when its provenance is known) into a table.
void write_scalar(toml::table& table, const ParamInfo& info, const Scalar& s, const CostValue* cost);
const CostValue* find_cost(const CostRecord* costs, const std::string& key);
}  // namespace detail

template <class T>
void Schema<T>::write_value(toml::table& table, const ParamInfo& info, const detail::Scalar& s, const CostRecord* costs,
                            const std::string& prefix) const {
    const std::string key = prefix.empty() ? info.key : prefix + "." + info.key;
    detail::write_scalar(table, info, s, info.cost ? detail::find_cost(costs, key) : nullptr);
}

}  // namespace ipisim::config
