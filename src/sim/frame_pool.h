// Pooled allocation of coroutine frames: g++ 12 does not elide frame allocations, so every
// Task call would hit malloc. Frames are recycled through per-size-class free lists (one pool
// per thread; the engine is single-threaded). Under AddressSanitizer the pool is bypassed so
// that use-after-free of a frame is still caught.
#pragma once

#include <cstddef>

namespace ipisim::sim {

struct FramePool {
    static void* allocate(std::size_t size);
    static void deallocate(void* p, std::size_t size) noexcept;
};

}  // namespace ipisim::sim
