#include "probe/cpuidle.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ipisim::probe {

namespace {

std::optional<std::string> read_line(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::string s;
    if (!f || !std::getline(f, s)) return std::nullopt;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

}  // namespace

Cpuidle read_cpuidle(int cpu, const std::string& root) {
    namespace fs = std::filesystem;
    Cpuidle out;
    out.driver = read_line(fs::path(root) / "cpuidle" / "current_driver").value_or("");
    out.governor = read_line(fs::path(root) / "cpuidle" / "current_governor_ro")
                       .value_or(read_line(fs::path(root) / "cpuidle" / "current_governor").value_or(""));
    const fs::path dir = fs::path(root) / fmt::format("cpu{}", cpu) / "cpuidle";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        out.absent_reason = fmt::format("{} does not exist (cpuidle driver: \"{}\")", dir.string(),
                                        out.driver.empty() ? "unknown" : out.driver);
        return out;
    }
    for (int k = 0;; ++k) {
        const fs::path s = dir / fmt::format("state{}", k);
        if (!fs::is_directory(s, ec)) break;
        CpuidleState st;
        st.name = read_line(s / "name").value_or(fmt::format("state{}", k));
        st.desc = read_line(s / "desc").value_or("");
        st.exit_latency_us = std::strtod(read_line(s / "latency").value_or("0").c_str(), nullptr);
        st.target_residency_us = std::strtod(read_line(s / "residency").value_or("0").c_str(), nullptr);
        st.disabled = read_line(s / "disable").value_or("0") != "0";
        out.states.push_back(st);
    }
    if (out.states.empty()) out.absent_reason = dir.string() + " holds no state directories";
    return out;
}

hw::IdleMechanism idle_mechanism(const CpuidleState& s, bool first, hw::Arch arch) {
    const auto has = [&](std::string_view w) { return s.desc.find(w) != std::string::npos; };
    if (first && (s.name == "POLL" || has("POLL IDLE"))) return hw::IdleMechanism::poll;
    if (arch == hw::Arch::arm64) return has("WFI") ? hw::IdleMechanism::wfi : hw::IdleMechanism::psci;
    if (has("MWAIT")) return hw::IdleMechanism::mwait;
    if (has("IOPORT")) return hw::IdleMechanism::ioport;
    return hw::IdleMechanism::hlt;
}

}  // namespace ipisim::probe
