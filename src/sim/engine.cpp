#include "sim/engine.h"

namespace ipisim::sim {

Engine::Engine() = default;

Engine::~Engine() {
    shutdown();
}

void Engine::shutdown() {
    // Newest first: later processes may reference state of earlier ones.
    for (auto it = processes_.rbegin(); it != processes_.rend(); ++it) it->destroy_frames();
}

Process& Engine::spawn(std::string name, Proc body) {
    const auto id = static_cast<uint32_t>(processes_.size());
    Process& p = processes_.emplace_back(*this, id, std::move(name), body.release());
    post(&Engine::start_process, &p, 0, id);
    return p;
}

void Engine::start_process(void* obj, uint32_t) {
    static_cast<Process*>(obj)->start();
}

void Engine::run() {
    run_until(Picos::max());
}

void Engine::run_until(Picos limit) {
    stopped_ = false;
    const uint64_t lim = limit.count();
    limit_ = lim;
    while (!stopped_) {
        Event e;
        if (!ready_.empty()) {
            e = ready_.pop();
        } else if (!queue_.empty() && queue_.pop_until(lim, &e)) {
            now_ = e.time;
        } else {
            break;
        }
        fingerprint_ = mix(fingerprint_, e.time, e.tag);
        ++events_;
        e.fn(e.obj, e.arg);
    }
    limit_ = 0;
    if (!stopped_ && lim != Picos::max().count() && now_ < lim) now_ = lim;
}

}  // namespace ipisim::sim
