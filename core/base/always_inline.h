// FATHOM_ALWAYS_INLINE: for the few small functions on the load's hottest
// loops that GCC leaves as calls by its size heuristics (measured with perf:
// the sorter merge's heap sift and its hand-over to the parse thread).
#pragma once

#if defined(__GNUC__)
#define FATHOM_ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define FATHOM_ALWAYS_INLINE __forceinline
#else
#define FATHOM_ALWAYS_INLINE inline
#endif
