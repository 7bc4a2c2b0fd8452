#include "probe/host_info.h"

#include <sys/klog.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace ipisim::probe {

namespace {

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t");
    if (a == std::string::npos) return "";
    const size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void read_cpuid(HostInfo& info) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0) return;
    info.cpuid_read = true;
    info.hypervisor_bit = (c >> 31) & 1U;
    if (!info.hypervisor_bit) return;
    // Leaf 0x40000000: EBX, ECX, EDX spell the hypervisor's vendor (only defined in a guest).
    __cpuid(0x40000000, a, b, c, d);
    char vendor[13] = {};
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &c, 4);
    std::memcpy(vendor + 8, &d, 4);
    info.hypervisor_vendor = trim(std::string(vendor, strnlen(vendor, 12)));
#else
    (void)info;
#endif
}

void read_dmesg(HostInfo& info) {
    const int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, nullptr, 0);
    if (size <= 0) {
        info.dmesg_status = std::string("not readable: ") + std::strerror(errno);
        return;
    }
    std::vector<char> buf(static_cast<size_t>(size));
    const int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf.data(), size);
    if (n < 0) {
        info.dmesg_status = std::string("not readable (dmesg_restrict or no CAP_SYSLOG): ") + std::strerror(errno);
        return;
    }
    info.dmesg_read = true;
    info.dmesg_status = "read";
    parse_dmesg(std::string(buf.data(), static_cast<size_t>(n)), info);
}

}  // namespace

void parse_cpuinfo(const std::string& text, HostInfo& info) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (trim(line).empty()) break;  // first processor only
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = trim(line.substr(0, colon));
        const std::string value = trim(line.substr(colon + 1));
        if (key == "model name") {
            info.model_name = value;
        } else if (key == "vendor_id") {
            info.vendor_id = value;
        } else if (key == "cpu MHz") {
            info.reported_mhz = std::strtod(value.c_str(), nullptr);
        } else if (key == "flags") {
            std::istringstream f(value);
            std::string flag;
            while (f >> flag) info.flags.insert(flag);
        }
    }
}

void parse_dmesg(const std::string& text, HostInfo& info) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        // 6.x: "APIC: Switched APIC routing to: physical x2apic"; older: "Switched APIC routing to
        // physical x2apic."
        const std::string marker = "Switched APIC routing to";
        const size_t at = line.find(marker);
        if (at != std::string::npos) {
            std::string mode = trim(line.substr(at + marker.size()));
            if (!mode.empty() && mode.front() == ':') mode = trim(mode.substr(1));
            if (!mode.empty() && mode.back() == '.') mode.pop_back();
            info.apic_routing = mode;
        }
        if (line.find("send_IPI_mask() replaced with kvm_send_ipi_mask") != std::string::npos) info.pv_send_ipi = true;
        if (line.find("pv remote TLB flush") != std::string::npos) info.pv_tlb_flush = true;
    }
}

std::string intc_kind(const HostInfo& info, std::string* why) {
    const std::string& r = info.apic_routing;
    if (r.find("x2apic") != std::string::npos) {
        *why = "dmesg: \"Switched APIC routing to: " + r + "\"";
        return r.find("cluster") != std::string::npos ? "x2apic_cluster" : "x2apic_phys";
    }
    if (!r.empty()) {
        *why = "dmesg: \"Switched APIC routing to: " + r + "\" (xAPIC, MMIO ICR)";
        return "xapic_mmio";
    }
    if (info.has_flag("x2apic")) {
        *why =
            "the x2apic flag is set and dmesg was not readable: assumed cluster mode (Linux's default for x2APIC "
            "unless the firmware forces physical mode)";
        return "x2apic_cluster";
    }
    *why = "no x2apic flag in /proc/cpuinfo: xAPIC (MMIO ICR)";
    return "xapic_mmio";
}

std::vector<std::string> read_mitigations(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string text = trim(read_file(e.path().string()));
        const std::string line = text.substr(0, text.find('\n'));
        if (line.rfind("Mitigation", 0) == 0) out.push_back(e.path().filename().string() + ": " + line);
    }
    std::sort(out.begin(), out.end());
    return out;
}

HostInfo read_host_info() {
    HostInfo info;
    utsname u{};
    if (uname(&u) == 0) {
        info.sysname = u.sysname;
        info.release = u.release;
        info.version = u.version;
        info.machine = u.machine;
    }
    parse_cpuinfo(read_file("/proc/cpuinfo"), info);
    read_dmesg(info);
    info.mitigations = read_mitigations();
    read_cpuid(info);
    return info;
}

}  // namespace ipisim::probe
