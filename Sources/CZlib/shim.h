// CZlib: the C headers Airlock uses, imported by exactly one Swift module (docs/architecture.md rule R2).
#pragma once
#include <zlib.h>

// deflateInit2 and inflateInit2 are macros in zlib.h, which Swift cannot call; these wrappers expose them.
static inline int airlock_deflateInit2(z_streamp strm, int level, int windowBits, int memLevel) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

static inline int airlock_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
