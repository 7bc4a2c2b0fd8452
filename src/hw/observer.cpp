#include "hw/observer.h"

namespace ipisim::hw {

namespace detail {
constinit thread_local Observer* current_observer = nullptr;
constinit thread_local Observer* current_tracer = nullptr;
}  // namespace detail

ObserverScope::ObserverScope(Observer& o, bool timeline)
    : saved_observer_(detail::current_observer), saved_tracer_(detail::current_tracer) {
    detail::current_observer = &o;
    detail::current_tracer = timeline ? &o : nullptr;
}

ObserverScope::~ObserverScope() {
    detail::current_observer = saved_observer_;
    detail::current_tracer = saved_tracer_;
}

}  // namespace ipisim::hw
