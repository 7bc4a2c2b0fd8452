// Self-registering factories: a new component is one .cpp with one registration line.
//
//   static const sim::Registration<workload::Workload, IpiPing> reg("workload", "ipi_ping", "...");
//   auto w = sim::Registry<workload::Workload>::instance().create("ipi_ping");
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipisim::sim {

// Every registered component of every kind, for `ipisim list`.
struct CatalogEntry {
    std::string kind;  // "workload", "intc", "tlb_flush", ...
    std::string name;
    std::string description;
};
inline std::vector<CatalogEntry>& catalog() {
    static std::vector<CatalogEntry> c;
    return c;
}

template <class Base>
class Registry {
public:
    using Factory = std::function<std::unique_ptr<Base>()>;
    struct Entry {
        std::string name;
        std::string description;
        Factory factory;
    };

    static Registry& instance() {
        static Registry r;
        return r;
    }

    void add(std::string name, std::string description, Factory f) {
        if (entries_.count(name) != 0) throw std::logic_error("duplicate registration: " + name);
        entries_.emplace(name, Entry{name, std::move(description), std::move(f)});
    }

    [[nodiscard]] bool contains(const std::string& name) const { return entries_.count(name) != 0; }

    // nullptr when unknown; callers turn that into a located error.
    [[nodiscard]] std::unique_ptr<Base> create(const std::string& name) const {
        auto it = entries_.find(name);
        if (it == entries_.end()) return nullptr;
        return it->second.factory();
    }

    // Sorted by name (std::map), so listings are deterministic.
    [[nodiscard]] std::vector<const Entry*> entries() const {
        std::vector<const Entry*> out;
        for (const auto& [k, e] : entries_) out.push_back(&e);
        return out;
    }

    [[nodiscard]] std::vector<std::string> name_list() const {
        std::vector<std::string> out;
        for (const auto& [k, e] : entries_) out.push_back(k);
        return out;
    }

    [[nodiscard]] std::string names() const {
        std::string s;
        for (const auto& [k, e] : entries_) s += (s.empty() ? "" : ", ") + k;
        return s;
    }

private:
    std::map<std::string, Entry> entries_;
};

// kind: the family shown by `ipisim list` ("workload", "intc", ...).
template <class Base, class Impl>
struct Registration {
    Registration(const char* kind, const char* name, const char* description) {
        Registry<Base>::instance().add(name, description, [] { return std::make_unique<Impl>(); });
        catalog().push_back(CatalogEntry{kind, name, description});
    }
};

}  // namespace ipisim::sim
