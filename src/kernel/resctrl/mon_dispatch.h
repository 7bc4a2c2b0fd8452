// How mon_event_read() reaches a CPU of the counter's monitoring domain (resctrl.h).
#pragma once

#include <cstdint>

namespace ipisim::kernel {

enum class MonDispatch : uint8_t { call_on_cpu, call_any };

}  // namespace ipisim::kernel
