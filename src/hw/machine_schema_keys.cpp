// The machine schema's conditions and the file layout of the distance-table sections.
#include "hw/machine_schema.h"

namespace ipisim::hw {

const char* distance_condition(DistanceClass c) {
    switch (c) {
        case DistanceClass::self:
            return "";
        case DistanceClass::smt:
            return "threads_per_core > 1";
        case DistanceClass::same_l3:
            return "cores_per_l3 > 1";
        case DistanceClass::same_die:
            return "l3_per_die > 1";
        case DistanceClass::same_package:
            return "dies_per_package > 1";
        case DistanceClass::cross_package:
            return cond::multi_package;
    }
    return "";
}

config::Conditions machine_conditions(Arch arch, const Topology& topo) {
    config::Conditions c;
    c[cond::x86] = arch == Arch::x86;
    c[cond::arm64] = arch == Arch::arm64;
    for (DistanceClass d : kAllDistanceClasses) {
        if (d != DistanceClass::self) c[distance_condition(d)] = topo.has_class(d);
    }
    return c;
}

CoherenceKeys coherence_keys(const CoherenceSpec& c) {
    CoherenceKeys k;
    k.l1_hit = c.l1_hit;
    k.smt = c.transfer.at(DistanceClass::smt);
    k.same_l3 = c.transfer.at(DistanceClass::same_l3);
    k.same_die = c.transfer.at(DistanceClass::same_die);
    k.same_package = c.transfer.at(DistanceClass::same_package);
    k.cross_package = c.transfer.at(DistanceClass::cross_package);
    k.remote_home_extra = c.remote_home_extra;
    k.memory_local = c.memory_local;
    k.memory_remote = c.memory_remote;
    k.line_occupancy = c.line_occupancy;
    k.fill_buffers = c.fill_buffers;
    k.store_buffer = c.store_buffer;
    return k;
}

CoherenceSpec coherence_spec(const CoherenceKeys& k, bool multi_package) {
    CoherenceSpec c;
    c.l1_hit = k.l1_hit;
    c.transfer.at(DistanceClass::self) = k.l1_hit;
    c.transfer.at(DistanceClass::smt) = k.smt;
    c.transfer.at(DistanceClass::same_l3) = k.same_l3;
    c.transfer.at(DistanceClass::same_die) = k.same_die;
    c.transfer.at(DistanceClass::same_package) = k.same_package;
    c.transfer.at(DistanceClass::cross_package) = k.cross_package;
    c.remote_home_extra = k.remote_home_extra;
    c.memory_local = k.memory_local;
    // One package: no line is homed remotely; a remote miss costs what a local one does.
    c.memory_remote = multi_package ? k.memory_remote : k.memory_local;
    c.line_occupancy = k.line_occupancy;
    c.fill_buffers = k.fill_buffers;
    c.store_buffer = k.store_buffer;
    return c;
}

FabricKeys fabric_keys(const IntcSpec& s) {
    FabricKeys k;
    k.self = s.delivery.at(DistanceClass::self);
    k.smt = s.delivery.at(DistanceClass::smt);
    k.same_l3 = s.delivery.at(DistanceClass::same_l3);
    k.same_die = s.delivery.at(DistanceClass::same_die);
    k.same_package = s.delivery.at(DistanceClass::same_package);
    k.cross_package = s.delivery.at(DistanceClass::cross_package);
    k.capacity = s.capacity;
    k.accept = s.accept;
    k.router_service = s.router_service;
    return k;
}

void apply_fabric_keys(const FabricKeys& k, IntcSpec& s) {
    s.delivery.at(DistanceClass::self) = k.self;
    s.delivery.at(DistanceClass::smt) = k.smt;
    s.delivery.at(DistanceClass::same_l3) = k.same_l3;
    s.delivery.at(DistanceClass::same_die) = k.same_die;
    s.delivery.at(DistanceClass::same_package) = k.same_package;
    s.delivery.at(DistanceClass::cross_package) = k.cross_package;
    s.capacity = k.capacity;
    s.accept = k.accept;
    s.router_service = k.router_service;
}

}  // namespace ipisim::hw
