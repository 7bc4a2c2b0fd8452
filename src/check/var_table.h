// A table keyed by simulated variable, for the monitors' hooks that run on every lock, unlock
// and CSD operation: indexed by the variable's place in memory (its line's id and its 8-byte
// slot on that line), grown on demand, so an update is an array store (no hashing, no node
// allocation). Each entry keeps its variable, so iteration yields the variables themselves (in
// line and slot order: deterministic) and a variable of another Memory at the same place is
// not mistaken for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/coherence/cache_line.h"
#include "hw/coherence/sim_var.h"

namespace ipisim::check {

// A variable's place in memory as one dense index: its line's id x 8 + its 8-byte slot.
[[nodiscard]] inline size_t var_index(const hw::SimVar& v) {
    constexpr size_t kSlotsPerLine = 8;  // 8-byte variables on a 64-byte line
    return static_cast<size_t>(v.line().id()) * kSlotsPerLine + v.offset() / 8;
}

template <class T>
class VarTable {
public:
    // The entry of `v`, or nullptr when it has none.
    [[nodiscard]] const T* find(const hw::SimVar* v) const {
        if (v == nullptr) return nullptr;
        const size_t i = var_index(*v);
        if (i >= slots_.size() || slots_[i].var != v) return nullptr;
        return &slots_[i].value;
    }
    [[nodiscard]] bool contains(const hw::SimVar* v) const { return find(v) != nullptr; }

    // Sets the entry of `v` (replacing the entry of another variable at the same place).
    void set(const hw::SimVar& v, T value) {
        const size_t i = var_index(v);
        if (i >= slots_.size()) slots_.resize(i + 1 + slots_.size() / 2);
        slots_[i] = Slot{&v, value};
    }
    void erase(const hw::SimVar& v) {
        const size_t i = var_index(v);
        if (i < slots_.size() && slots_[i].var == &v) slots_[i] = Slot{};
    }

    // Calls f(var, value) for every entry.
    template <class F>
    void for_each(F&& f) const {
        for (const Slot& s : slots_) {
            if (s.var != nullptr) f(s.var, s.value);
        }
    }

private:
    struct Slot {
        const hw::SimVar* var = nullptr;
        T value{};
    };
    std::vector<Slot> slots_;
};

}  // namespace ipisim::check
