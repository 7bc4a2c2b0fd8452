#include "hw/intc/intc_type.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ipisim::hw {

namespace {

std::map<std::string, IntcType, std::less<>>& registry() {
    static std::map<std::string, IntcType, std::less<>> r;
    return r;
}

}  // namespace

bool IntcType::exists_on(Arch a) const {
    return std::find(archs.begin(), archs.end(), a) != archs.end();
}

void register_intc_type(IntcType type) {
    const std::string name = type.name;
    if (!registry().emplace(name, std::move(type)).second) {
        throw std::logic_error("interrupt controller registered twice: " + name);
    }
}

const IntcType* find_intc_type(std::string_view name) {
    auto it = registry().find(name);
    return it == registry().end() ? nullptr : &it->second;
}

std::vector<const IntcType*> intc_types() {
    std::vector<const IntcType*> out;
    for (const auto& [name, type] : registry()) out.push_back(&type);
    return out;
}

std::string intc_type_names() {
    std::string out;
    for (const auto& [name, type] : registry()) out += (out.empty() ? "" : ", ") + name;
    return out;
}

}  // namespace ipisim::hw
