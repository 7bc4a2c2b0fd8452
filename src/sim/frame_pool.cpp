#include "sim/frame_pool.h"

#include <array>
#include <new>

namespace ipisim::sim {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif

constexpr std::size_t kGranule = 64;
constexpr std::size_t kClasses = 64;  // frames up to 4 KiB are pooled

struct FreeNode {
    FreeNode* next;
};

// Trivially constructible and destructible, so a thread_local access is a plain TLS load (no
// init guard on every allocation). Chunks are never returned: frames are recycled for the life
// of the thread, and every block is back on a free list once the engine has shut down.
struct Pool {
    std::array<FreeNode*, kClasses> free;
};

thread_local Pool pool{};

}  // namespace

void* FramePool::allocate(std::size_t size) {
    const std::size_t cls = (size + kGranule - 1) / kGranule;
    if (!kPooled || cls >= kClasses) return ::operator new(size);
    FreeNode*& head = pool.free[cls];
    if (head == nullptr) {
        // Carve a chunk of 16 frames of this class.
        const std::size_t bytes = cls * kGranule;
        char* chunk = static_cast<char*>(::operator new(bytes * 16));
        for (int i = 15; i >= 0; --i) {
            auto* n = reinterpret_cast<FreeNode*>(chunk + static_cast<std::size_t>(i) * bytes);
            n->next = head;
            head = n;
        }
    }
    FreeNode* n = head;
    head = n->next;
    return n;
}

void FramePool::deallocate(void* p, std::size_t size) noexcept {
    const std::size_t cls = (size + kGranule - 1) / kGranule;
    if (!kPooled || cls >= kClasses) {
        ::operator delete(p);
        return;
    }
    auto* n = static_cast<FreeNode*>(p);
    n->next = pool.free[cls];
    pool.free[cls] = n;
}

}  // namespace ipisim::sim
