// CZBar: the C headers Airlock uses, imported by exactly one Swift module (docs/architecture.md rule R2).
#pragma once
#include <zbar.h>

/// The fourcc of 8-bit grayscale ("Y800"); `zbar_fourcc` is a function-like macro Swift cannot import.
static inline unsigned long airlock_zbar_format_y800(void) { return zbar_fourcc('Y', '8', '0', '0'); }
