#include "config/schema.h"

#include <fmt/format.h>

#include <limits>

#include "config/typed_value.h"
#include "config/units.h"

namespace ipisim::config {

const char* to_string(ParamType t) {
    switch (t) {
        case ParamType::integer:
            return "integer";
        case ParamType::number:
            return "number";
        case ParamType::boolean:
            return "boolean";
        case ParamType::string:
            return "string";
        case ParamType::choice:
            return "choice";
        case ParamType::duration:
            return "duration";
        case ParamType::frequency:
            return "frequency";
    }
    return "?";
}

const char* to_string(Mark m) {
    switch (m) {
        case Mark::unmarked:
            return "-";
        case Mark::P:
            return "P";
        case Mark::D:
            return "D";
        case Mark::A:
            return "A";
        case Mark::F:
            return "F";
        case Mark::set:
            return "set";
    }
    return "?";
}

std::map<std::string, std::function<SchemaInfo()>>& schema_catalog() {
    static std::map<std::string, std::function<SchemaInfo()>> c;
    return c;
}

SchemaRegistration::SchemaRegistration(const std::string& name, std::function<SchemaInfo()> info) {
    if (!schema_catalog().emplace(name, std::move(info)).second) {
        throw std::logic_error("schema registered twice: " + name);
    }
}

std::string duration_text(sim::Picos t) {
    const uint64_t ps = t.count();
    if (ps == 0) return "0 ns";
    struct Unit {
        uint64_t scale;
        const char* name;
    };
    static constexpr Unit kUnits[] = {
        {1'000'000'000'000ULL, "s"}, {1'000'000'000ULL, "ms"}, {1'000'000ULL, "us"}, {1'000ULL, "ns"}};
    for (const Unit& u : kUnits) {
        if (ps % u.scale == 0) return fmt::format("{} {}", ps / u.scale, u.name);
    }
    if (ps < 1000) return fmt::format("{} ps", ps);
    // Nanoseconds with the picoseconds as up to three decimals: exact, and parse_duration()
    // reads it back to the same count (it rounds to the nearest picosecond).
    std::string frac = fmt::format("{:03}", ps % 1000);
    while (frac.back() == '0') frac.pop_back();
    return fmt::format("{}.{} ns", ps / 1000, frac);
}

std::string frequency_text(sim::ClockDomain f) {
    const uint64_t khz = f.khz();
    if (khz % 1'000'000 == 0) return fmt::format("{} GHz", khz / 1'000'000);
    if (khz % 1'000 == 0) return fmt::format("{} MHz", khz / 1'000);
    return fmt::format("{} kHz", khz);
}

namespace detail {

namespace {

std::optional<Mark> parse_mark(const std::string& s) {
    if (s == "P") return Mark::P;
    if (s == "D") return Mark::D;
    if (s == "A") return Mark::A;
    if (s == "F") return Mark::F;
    if (s == "set") return Mark::set;  // written by a resolved configuration for a --set value
    return std::nullopt;
}

// The base-unit value of a node of the parameter's type, or a problem.
struct Converted {
    Scalar value;
    std::string problem;
};

Converted convert(const ParamInfo& info, const toml::node& n) {
    Converted c;
    c.value.type = info.type;
    auto bad = [&](const char* expected) {
        c.problem = fmt::format("expected {}, got {}", expected, type_name(n));
        return c;
    };
    switch (info.type) {
        case ParamType::integer: {
            auto v = n.value_exact<int64_t>();
            if (!v) return bad("an integer");
            c.value.i = *v;
            c.value.d = static_cast<double>(*v);
            return c;
        }
        case ParamType::number: {
            if (auto v = n.value_exact<double>()) {
                if (!std::isfinite(*v)) {
                    c.problem = fmt::format("must be a finite number, got {}", *v);
                    return c;
                }
                c.value.d = *v;
            } else if (auto i = n.value_exact<int64_t>()) {
                c.value.d = static_cast<double>(*i);
            } else {
                return bad("a number");
            }
            return c;
        }
        case ParamType::boolean: {
            auto v = n.value_exact<bool>();
            if (!v) return bad("a boolean");
            c.value.b = *v;
            return c;
        }
        case ParamType::string:
        case ParamType::choice: {
            auto v = n.value_exact<std::string>();
            if (!v) return bad("a string");
            c.value.s = *v;
            return c;
        }
        case ParamType::duration: {
            auto v = n.value_exact<std::string>();
            if (!v) {
                c.problem =
                    fmt::format("a duration must be a string with a unit such as \"5 ns\", got {}", type_name(n));
                return c;
            }
            std::string why;
            auto d = parse_duration(*v, &why);
            if (!d) {
                c.problem = why;
                return c;
            }
            c.value.i = static_cast<int64_t>(d->count());
            c.value.d = static_cast<double>(d->count());
            return c;
        }
        case ParamType::frequency: {
            auto v = n.value_exact<std::string>();
            if (!v) {
                c.problem =
                    fmt::format("a frequency must be a string with a unit such as \"2.1 GHz\", got {}", type_name(n));
                return c;
            }
            std::string why;
            auto f = parse_frequency(*v, &why);
            if (!f) {
                c.problem = why;
                return c;
            }
            c.value.i = static_cast<int64_t>(f->khz());
            c.value.d = static_cast<double>(f->khz());
            return c;
        }
    }
    return bad("a value");
}

// Integers are compared exactly; the bounds of the field's C++ type are the caller's min/max.
std::string bounds_problem(const ParamInfo& info, const Scalar& s) {
    if (info.type == ParamType::boolean || info.type == ParamType::string || info.type == ParamType::choice) {
        return "";
    }
    // Declared bounds first: "must be at least 1" says more than the C++ type's range.
    if (info.min && s.d < *info.min) return fmt::format("must be at least {}", bound_text(info, *info.min));
    if (info.max && s.d > *info.max) return fmt::format("must be at most {}", bound_text(info, *info.max));
    if (info.type == ParamType::integer && (s.i < info.type_min || s.i > info.type_max)) {
        return fmt::format("{} is out of range", s.i);
    }
    return "";
}

Range read_range(Table& t, const ParamInfo& info, const toml::node& n, const std::string& key) {
    const toml::array* a = n.as_array();
    if (a == nullptr || a->size() != 2) {
        t.fail_at(n, key, fmt::format("expected [low, high], got {}", type_name(n)));
    }
    Range r;
    for (size_t i = 0; i < 2; ++i) {
        const Converted c = convert(info, *a->get(i));
        if (!c.problem.empty()) t.fail_at(*a->get(i), fmt::format("{}[{}]", key, i), c.problem);
        (i == 0 ? r.lo : r.hi) = c.value.d;
    }
    if (r.lo > r.hi) t.fail_at(n, key, "low end above high end");
    return r;
}

}  // namespace

std::string bound_text(const ParamInfo& info, double v) {
    switch (info.type) {
        case ParamType::duration:
            return duration_text(sim::Picos(static_cast<uint64_t>(v)));
        case ParamType::frequency:
            return frequency_text(sim::ClockDomain(static_cast<uint64_t>(v)));
        case ParamType::integer:
            return fmt::format("{}", static_cast<int64_t>(v));
        default:
            return fmt::format("{}", v);
    }
}

void fail_range(Table& t, const ParamInfo& info, const std::string& problem) {
    t.fail(info.key, problem);
}

std::optional<Scalar> read_scalar(ReadContext& ctx, const ParamInfo& info) {
    Table& t = *ctx.table;
    const toml::node* n = t.raw(info.key);
    if (n == nullptr) return std::nullopt;
    t.mark_used(info.key);
    const std::string dotted = t.dotted(info.key);
    const toml::node* value = n;
    Provenance prov;
    if (const toml::table* marked = n->as_table()) {
        if (!info.cost) t.fail(info.key, fmt::format("expected {} value, got a table", to_string(info.type)));
        Table m(marked, t.file(), dotted);
        value = m.raw("value");
        if (value == nullptr) m.fail("value", "required key is missing");
        m.mark_used("value");
        const auto mark_text = m.get<std::string>("mark");
        const std::optional<Mark> mark = parse_mark(mark_text);
        if (!mark) m.fail("mark", fmt::format("must be \"P\", \"D\", \"A\" or \"F\", got \"{}\"", mark_text));
        prov.mark = *mark;
        prov.source = m.get_or<std::string>("source", "");
        if (prov.source.empty()) m.fail("source", "a marked value names its source (or, for A, its rationale)");
        if (const toml::node* r = m.raw("range")) {
            m.mark_used("range");
            prov.range = read_range(m, info, *r, m.dotted("range"));
        } else if (prov.mark == Mark::A || prov.mark == Mark::F) {
            m.fail("range", fmt::format("an {} value needs a plausible range [low, high]", to_string(prov.mark)));
        }
        if (prov.mark == Mark::F) {
            prov.target = m.get_or<std::string>("target", "");
            if (prov.target.empty()) m.fail("target", "a fitted (F) value names its calibration target");
        } else if (m.has("target")) {
            m.fail("target", "only fitted (F) values have a target");
        }
        if (const toml::node* f = m.raw("fit")) {
            m.mark_used("fit");
            if (prov.mark != Mark::F) m.fail("fit", "only fitted (F) values have a fit interval");
            const Range fit = read_range(m, info, *f, m.dotted("fit"));
            if (prov.range && (fit.lo < prov.range->lo || fit.hi > prov.range->hi)) {
                m.fail_at(*f, m.dotted("fit"), "the fit interval reaches outside the range");
            }
            prov.fit = fit;
        }
        m.finish();
    }
    const Converted c = convert(info, *value);
    if (!c.problem.empty()) t.fail_at(*value, dotted, c.problem);
    const std::string out_of_bounds = bounds_problem(info, c.value);
    if (!out_of_bounds.empty()) t.fail_at(*value, dotted, out_of_bounds);
    // A value from --set is marked "set" (the file's range and source stay, as information).
    if (value->source().path != nullptr && *value->source().path == kOverrideSource) {
        if (prov.mark != Mark::unmarked && prov.mark != Mark::set) {
            prov.source = fmt::format("--set (the file's {} value: {})", to_string(prov.mark), prov.source);
        } else if (prov.source.empty()) {
            prov.source = "--set";
        }
        prov.mark = Mark::set;
        prov.target.clear();
    }
    if (prov.mark != Mark::set && prov.range && (c.value.d < prov.range->lo || c.value.d > prov.range->hi)) {
        t.fail_at(*value, dotted, "the value lies outside its own range");
    }
    if (prov.mark != Mark::set && prov.fit && (c.value.d < prov.fit->lo || c.value.d > prov.fit->hi)) {
        t.fail_at(*value, dotted, "the value lies outside its own fit interval");
    }
    if (info.cost && ctx.costs != nullptr) {
        const auto& src = value->source();
        ctx.costs->push_back(CostValue{dotted, info.type, c.value.d, prov, t.file_of(info.key),
                                       src.path != nullptr ? static_cast<int>(src.begin.line) : 0});
    }
    return c.value;
}

std::string scalar_text(ParamType type, const Scalar& s) {
    switch (type) {
        case ParamType::integer:
            return fmt::format("{}", s.i);
        case ParamType::number:
            return fmt::format("{}", s.d);
        case ParamType::boolean:
            return s.b ? "true" : "false";
        case ParamType::string:
        case ParamType::choice:
            return fmt::format("\"{}\"", s.s);
        case ParamType::duration:
            return fmt::format("\"{}\"", duration_text(sim::Picos(static_cast<uint64_t>(s.i))));
        case ParamType::frequency:
            return fmt::format("\"{}\"", frequency_text(sim::ClockDomain(static_cast<uint64_t>(s.i))));
    }
    return "?";
}

namespace {

// Calls f with the TOML value of a scalar (s) or of a bare base-unit number (d, s == nullptr).
template <class F>
void with_value(ParamType type, double d, const Scalar* s, F&& f) {
    switch (type) {
        case ParamType::integer:
            f(s != nullptr ? s->i : static_cast<int64_t>(d));
            return;
        case ParamType::number:
            f(d);
            return;
        case ParamType::boolean:
            f(s != nullptr && s->b);
            return;
        case ParamType::string:
        case ParamType::choice:
            f(s != nullptr ? s->s : std::string());
            return;
        case ParamType::duration:
            f(duration_text(sim::Picos(static_cast<uint64_t>(s != nullptr ? s->i : static_cast<int64_t>(d)))));
            return;
        case ParamType::frequency:
            f(frequency_text(sim::ClockDomain(static_cast<uint64_t>(s != nullptr ? s->i : static_cast<int64_t>(d)))));
            return;
    }
}

void insert_value(toml::table& table, const std::string& key, ParamType type, double d, const Scalar* s) {
    with_value(type, d, s, [&](auto&& v) { table.insert_or_assign(key, v); });
}

}  // namespace

const CostValue* find_cost(const CostRecord* costs, const std::string& key) {
    if (costs == nullptr) return nullptr;
    for (const CostValue& c : *costs) {
        if (c.key == key) return &c;
    }
    return nullptr;
}

void write_scalar(toml::table& table, const ParamInfo& info, const Scalar& s, const CostValue* cost) {
    if (cost == nullptr || cost->provenance.mark == Mark::unmarked) {
        insert_value(table, info.key, info.type, s.d, &s);
        return;
    }
    const Provenance& p = cost->provenance;
    toml::table marked;
    insert_value(marked, "value", info.type, s.d, &s);
    marked.insert_or_assign("mark", std::string(to_string(p.mark)));
    if (p.range) marked.insert_or_assign("range", typed_range(info.type, p.range->lo, p.range->hi));
    if (p.fit && p.mark == Mark::F) marked.insert_or_assign("fit", typed_range(info.type, p.fit->lo, p.fit->hi));
    marked.insert_or_assign("source", p.source);
    if (!p.target.empty()) marked.insert_or_assign("target", p.target);
    marked.is_inline(true);
    table.insert_or_assign(info.key, std::move(marked));
}

}  // namespace detail

}  // namespace ipisim::config
