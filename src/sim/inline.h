// IPISIM_INLINE: force-inline a hot-path function (the engine's dispatch, memory accesses, the
// RNG); GCC's heuristics leave some of them out of line at -O2.
#pragma once

#define IPISIM_INLINE inline __attribute__((always_inline))
