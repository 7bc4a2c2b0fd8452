#include "sample_results.h"

#include <sstream>

#include "probe/host_topology.h"
#include "support/paths.h"

namespace ipisim::probe::testing {

ProbeResults sample_results(const std::string& xml, bool virtualized) {
    ProbeResults r;
    r.date = "2025-01-02T03:04:05Z";
    r.command = "ipisim probe --quick";
    r.quick = true;
    r.repeats = 3;
    r.realtime = true;
    r.load_average = "0.10 0.20 0.30";
    r.info.sysname = "Linux";
    r.info.release = "6.18.0";
    r.info.machine = "x86_64";
    r.info.model_name = "Test CPU";
    r.info.vendor_id = "AuthenticAMD";
    r.info.flags = {"x2apic", "pcid"};
    if (virtualized) r.info.flags.insert("hypervisor");
    r.info.dmesg_read = true;
    r.info.apic_routing = "physical x2apic";
    r.topology = load_topology_xml(ipisim::test::data_path("hwloc/") + xml);
    r.caller_cpu = 0;
    r.target_cpu = 1;
    r.cpuidle.driver = "none";
    r.cpuidle.absent_reason = "no cpuidle directory";
    r.core_clock_mhz = summarize({3000, 3100, 3200});
    r.cacheline.push_back(ClassLatency{hw::DistanceClass::same_l3, {{0, 1}}, {100}, summarize({99, 100, 101}), 2000});
    r.syscall_ns = summarize({190, 191, 192});
    r.pipe_same_cpu_ns = summarize({3500, 3510, 3520});
    r.skipped.push_back(Skipped{"cpuidle states", "no cpuidle directory"});
    return r;
}

int line_starting(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.rfind(prefix, 0) == 0) return n;
    }
    return 0;
}

std::string replace_line(const std::string& text, const std::string& prefix, const std::string& replacement) {
    std::istringstream in(text);
    std::string line;
    std::string out;
    bool done = false;
    while (std::getline(in, line)) {
        if (!done && line.rfind(prefix, 0) == 0) {
            out += replacement + "\n";
            done = true;
        } else {
            out += line + "\n";
        }
    }
    return out;
}

}  // namespace ipisim::probe::testing
