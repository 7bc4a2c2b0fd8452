#include "workload/workload.h"

namespace ipisim::workload::detail {

nlohmann::ordered_json scalar_json(const config::detail::Scalar& s) {
    switch (s.type) {
        case config::ParamType::integer:
            return s.i;
        case config::ParamType::number:
            return s.d;
        case config::ParamType::boolean:
            return s.b;
        case config::ParamType::string:
        case config::ParamType::choice:
            return s.s;
        case config::ParamType::duration:
            return config::duration_text(sim::Picos(static_cast<uint64_t>(s.i)));
        case config::ParamType::frequency:
            return config::frequency_text(sim::ClockDomain(static_cast<uint64_t>(s.i)));
    }
    return nullptr;
}

}  // namespace ipisim::workload::detail
