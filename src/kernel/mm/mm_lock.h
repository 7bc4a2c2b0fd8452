// Which lock an mm path that only reads the VMA tree takes ([kernel] fault_lock, madvise_lock):
// mmap_lock for read, or the per-VMA lock (lock_vma_under_rcu, CONFIG_PER_VMA_LOCK) with
// mmap_lock for read as the fallback when the VMA is write-locked (kernel/mm/vma.cpp).
#pragma once

#include <cstdint>

namespace ipisim::kernel::mm {

enum class MmLock : uint8_t { mmap_lock, vma_lock };

}  // namespace ipisim::kernel::mm
