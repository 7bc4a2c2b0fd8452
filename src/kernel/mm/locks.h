// The two kernel locks the mm paths contend on, on simulated cache lines: SpinLock
// (qspinlock, spinlock.h) and RwSem (rw_semaphore, rwsem.h).
#pragma once

#include "kernel/mm/rwsem.h"
#include "kernel/mm/spinlock.h"
